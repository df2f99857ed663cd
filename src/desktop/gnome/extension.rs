//! The extension's files and its installation for the current user.

use std::path::PathBuf;

pub const UUID: &str = "treeglass@treeglass.github.io";
const CORE: &str = include_str!("../../../assets/gnome-extension/core.js");
const LEGACY_HEAD: &str = include_str!("../../../assets/gnome-extension/legacy.js");
const LEGACY_TAIL: &str = include_str!("../../../assets/gnome-extension/legacy-tail.js");
const ESM_HEAD: &str = include_str!("../../../assets/gnome-extension/esm.js");
const ESM_TAIL: &str = include_str!("../../../assets/gnome-extension/esm-tail.js");
/// The version in metadata.json (the core's TG_VERSION). 2: the pointer says whether the
/// left button is pressed.
pub const VERSION: u32 = 2;

/// Which build: GNOME Shell 43 and 44 (`imports`), or 45 and later (ES modules).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Build {
    Legacy,
    Modules,
}

impl Build {
    /// The build for a GNOME Shell version (`43.9`, `46.0`).
    pub fn for_shell(version: &str) -> Build {
        match version
            .split('.')
            .next()
            .and_then(|m| m.parse::<u32>().ok())
        {
            Some(m) if m < 45 => Build::Legacy,
            _ => Build::Modules,
        }
    }
}

/// `extension.js` for that build.
pub fn script(build: Build) -> String {
    match build {
        Build::Legacy => format!("{LEGACY_HEAD}\n{CORE}{LEGACY_TAIL}"),
        Build::Modules => format!("{ESM_HEAD}\n{CORE}{ESM_TAIL}"),
    }
}

/// `metadata.json` for that build.
pub fn metadata(build: Build) -> String {
    let versions = match build {
        Build::Legacy => r#"["43", "44"]"#,
        Build::Modules => r#"["45", "46", "47", "48", "49"]"#,
    };
    format!(
        "{{\n  \"uuid\": \"{UUID}\",\n  \"name\": \"treeglass\",\n  \"description\": \
         \"Lets treeglass find, raise and highlight windows (org.treeglass.Shell1 on the \
         session bus)\",\n  \"url\": \"https://github.com/treeglass/treeglass\",\n  \
         \"shell-version\": {versions},\n  \"version\": {VERSION}\n}}\n"
    )
}

/// The user's extensions directory for it.
pub fn dir() -> Result<PathBuf, String> {
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(|h| PathBuf::from(h).join(".local/share"))
        })
        .ok_or("neither $XDG_DATA_HOME nor $HOME is set")?;
    Ok(data.join("gnome-shell/extensions").join(UUID))
}

/// Writes the extension's files for `build`; returns the directory.
pub fn install(build: Build) -> Result<PathBuf, String> {
    let dir = dir()?;
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    for (name, text) in [
        ("extension.js", script(build)),
        ("metadata.json", metadata(build)),
    ] {
        let path = dir.join(name);
        let tmp = dir.join(format!("{name}.new"));
        std::fs::write(&tmp, text)
            .and_then(|()| std::fs::rename(&tmp, &path))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(dir)
}

/// The build installed now, if its files are this treeglass's.
pub fn installed() -> Result<Option<Build>, String> {
    let dir = dir()?;
    let js = match std::fs::read_to_string(dir.join("extension.js")) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read {}: {e}", dir.display())),
    };
    Ok([Build::Legacy, Build::Modules]
        .into_iter()
        .find(|&b| script(b) == js))
}

pub fn remove() -> Result<bool, String> {
    let dir = dir()?;
    match std::fs::remove_dir_all(&dir) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(format!("cannot remove {}: {e}", dir.display())),
    }
}
