//! The system clipboard: read what it offers, write one value (text, an image, or a file URL)
//! and say what it holds afterwards. On X11 the writing process owns the clipboard, so a write
//! keeps its owner alive (up to `keep`) until another application takes over.

use std::path::Path;
use std::time::{Duration, Instant};

use serde::Serialize;

/// A clipboard failure, with what was attempted.
#[derive(Debug, thiserror::Error)]
pub enum ClipboardError {
    #[error("clipboard unavailable: {0}")]
    Unavailable(String),
    #[error("{0}")]
    Input(String),
    #[error("clipboard write failed: {0}")]
    Write(String),
}

/// What the clipboard offers.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Contents {
    /// Available kinds: `text`, `html`, `image`, `files`.
    pub types: Vec<String>,
    /// The plain text, only when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Image size when an image is offered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<(usize, usize)>,
    /// File paths when a file list is offered.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
}

/// One value to put on the clipboard.
#[derive(Debug, Clone)]
pub enum Item {
    Text(String),
    /// A PNG file to decode and offer as an image.
    Image(String),
    /// An absolute path offered as a file URL.
    File(String),
}

fn open() -> Result<arboard::Clipboard, ClipboardError> {
    // Without a display arboard waits for an X server and then says it "timed out because it
    // was unreachable": name the cause instead.
    #[cfg(all(unix, not(target_os = "macos")))]
    if std::env::var_os("DISPLAY").is_none_or(|d| d.is_empty())
        && std::env::var_os("WAYLAND_DISPLAY").is_none_or(|d| d.is_empty())
    {
        return Err(ClipboardError::Unavailable(
            "no display: $DISPLAY is not set (nor $WAYLAND_DISPLAY); the clipboard belongs to an \
             X11 or Wayland session"
                .into(),
        ));
    }
    arboard::Clipboard::new().map_err(|e| ClipboardError::Unavailable(e.to_string()))
}

/// Lists what the clipboard offers; the text itself only with `with_text`.
pub fn read(with_text: bool) -> Result<Contents, ClipboardError> {
    let mut cb = open()?;
    let mut c = Contents::default();
    if let Ok(t) = cb.get().text() {
        c.types.push("text".into());
        if with_text {
            c.text = Some(t);
        }
    }
    if cb.get().html().is_ok() {
        c.types.push("html".into());
    }
    if let Ok(img) = cb.get().image() {
        c.types.push("image".into());
        c.image = Some((img.width, img.height));
    }
    if let Ok(files) = cb.get().file_list()
        && !files.is_empty()
    {
        c.types.push("files".into());
        c.files = files.iter().map(|p| p.display().to_string()).collect();
    }
    Ok(c)
}

/// PNG files for `clipboard write --image` are capped at this (64 MiB).
const MAX_IMAGE_BYTES: u64 = 64 << 20;

fn image_data(path: &str) -> Result<arboard::ImageData<'static>, ClipboardError> {
    let shown = crate::model::sanitize(path, 0);
    let bytes = crate::files::read_capped(Path::new(path), MAX_IMAGE_BYTES)
        .map_err(|e| ClipboardError::Input(format!("cannot read image: {e}")))?;
    let img = image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| ClipboardError::Input(format!("cannot read image {shown}: {e}")))?
        .decode()
        .map_err(|e| ClipboardError::Input(format!("cannot read image {shown}: {e}")))?
        .to_rgba8();
    let (w, h) = img.dimensions();
    Ok(arboard::ImageData {
        width: w as usize,
        height: h as usize,
        bytes: img.into_raw().into(),
    })
}

/// A finished write: what the clipboard offers now, and the owner that keeps serving it.
pub struct Written {
    pub contents: Contents,
    owner: std::thread::JoinHandle<()>,
}

impl Written {
    /// Keeps serving the clipboard until another application takes it or the keep time passes.
    pub fn serve(self) {
        let _ = self.owner.join();
    }
}

/// Replaces the clipboard with exactly `item`, then reads back what it offers. The owner keeps
/// serving until another application takes the clipboard or `keep` passes (see [`Written::serve`]).
pub fn write(item: &Item, keep: Duration) -> Result<Written, ClipboardError> {
    // Check input before touching the clipboard, so bad input loses nothing.
    let image = match item {
        Item::Image(p) => Some(image_data(p)?),
        _ => None,
    };
    if let Item::File(p) = item {
        if !Path::new(p).is_absolute() {
            return Err(ClipboardError::Input(format!(
                "{p}: a file must be given by its absolute path"
            )));
        }
        if !Path::new(p).exists() {
            return Err(ClipboardError::Input(format!("{p}: no such file")));
        }
    }
    let wanted = item.clone();
    let item = item.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    // Only an X11 or Wayland owner has to stay to serve what it put there.
    #[cfg(target_os = "linux")]
    let deadline = Instant::now() + keep;
    #[cfg(not(target_os = "linux"))]
    let _ = keep;
    let owner = std::thread::spawn(move || {
        let mut cb = match open() {
            Ok(cb) => cb,
            Err(e) => {
                let _ = tx.send(Err(e));
                return;
            }
        };
        let set = cb.set();
        #[cfg(target_os = "linux")]
        let set = {
            use arboard::SetExtLinux;
            set.wait_until(deadline)
        };
        // `wait_until` blocks this thread while it owns the clipboard: report success first.
        let _ = tx.send(Ok(()));
        let r = match (item, image) {
            (Item::Text(t), _) => set.text(t),
            (Item::Image(_), Some(img)) => set.image(img),
            (Item::File(p), _) => set.file_list(&[p]),
            (Item::Image(_), None) => Ok(()),
        };
        if let Err(e) = r {
            eprintln!("treeglass: clipboard: {e}");
        }
    });
    rx.recv()
        .map_err(|_| ClipboardError::Write("the clipboard thread stopped".into()))??;
    // Read back while the owner serves the selection, until it shows what was written.
    let mut contents = Contents::default();
    let settle = Instant::now() + Duration::from_secs(2);
    while Instant::now() < settle {
        std::thread::sleep(Duration::from_millis(30));
        contents = read(true)?;
        let landed = match &wanted {
            Item::Text(t) => contents.text.as_deref() == Some(t.as_str()),
            Item::Image(_) => contents.types.iter().any(|t| t == "image"),
            Item::File(p) => contents.files.iter().any(|f| f == p),
        };
        if landed {
            break;
        }
    }
    contents.text = None;
    Ok(Written { contents, owner })
}
