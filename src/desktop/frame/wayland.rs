//! The highlight on Wayland: four bars around the element, each a `zwlr_layer_shell_v1` surface
//! on the overlay layer (above every window), anchored to its output's top-left corner and
//! placed by its margins, with an empty input region (the pointer goes through to the app) and
//! no keyboard interactivity. Output positions come from `zxdg_output_v1` (logical
//! coordinates: the compositor's layout, where window positions live). Each bar's pixels are one
//! colour in a shared-memory buffer written with plain writes (no mapping, no unsafe code). The
//! compositor takes the surfaces away with the connection. GNOME has no layer shell: `start`
//! says so.

use std::io::Write;
use std::os::fd::AsFd;
use std::sync::mpsc;

use wayland_client::globals::{GlobalListContents, registry_queue_init};
use wayland_client::protocol::{
    wl_buffer, wl_compositor, wl_output, wl_region, wl_registry, wl_shm, wl_shm_pool, wl_surface,
};
use wayland_client::{Connection, Dispatch, EventQueue, QueueHandle, delegate_noop};
use wayland_protocols::xdg::xdg_output::zv1::client::{
    zxdg_output_manager_v1::ZxdgOutputManagerV1, zxdg_output_v1,
};
use wayland_protocols_wlr::layer_shell::v1::client::{zwlr_layer_shell_v1, zwlr_layer_surface_v1};

use super::{Cmd, FrameWindow, WINDOW_NAME};
use super::{THICKNESS, frame_geometry};
use crate::model::Bounds;

/// The frame's colour, as on X11 (ARGB8888, stored little-endian: B, G, R, A).
const PIXEL: [u8; 4] = [0x60, 0x10, 0xff, 0xff];

#[derive(Debug, Clone, Copy, Default)]
struct Area {
    x: i32,
    y: i32,
    width: i32,
    height: i32,
}

struct Output {
    wl: wl_output::WlOutput,
    logical: Area,
}

#[derive(Default)]
struct State {
    /// Logical position and size of each output, by index, as `zxdg_output_v1` says.
    areas: Vec<Area>,
    /// Configure serials to acknowledge, by bar index.
    configured: Vec<Option<u32>>,
    /// A bar the compositor closed.
    closed: bool,
}

impl Dispatch<wl_registry::WlRegistry, GlobalListContents> for State {
    fn event(
        _: &mut State,
        _: &wl_registry::WlRegistry,
        _: wl_registry::Event,
        _: &GlobalListContents,
        _: &Connection,
        _: &QueueHandle<State>,
    ) {
    }
}

delegate_noop!(State: wl_compositor::WlCompositor);
delegate_noop!(State: wl_region::WlRegion);
delegate_noop!(State: wl_shm_pool::WlShmPool);
delegate_noop!(State: ignore wl_shm::WlShm);
delegate_noop!(State: ignore wl_buffer::WlBuffer);
delegate_noop!(State: ignore wl_surface::WlSurface);
delegate_noop!(State: ignore wl_output::WlOutput);
delegate_noop!(State: ZxdgOutputManagerV1);
delegate_noop!(State: zwlr_layer_shell_v1::ZwlrLayerShellV1);

impl Dispatch<zxdg_output_v1::ZxdgOutputV1, usize> for State {
    fn event(
        state: &mut State,
        _: &zxdg_output_v1::ZxdgOutputV1,
        event: zxdg_output_v1::Event,
        index: &usize,
        _: &Connection,
        _: &QueueHandle<State>,
    ) {
        let Some(a) = state.areas.get_mut(*index) else {
            return;
        };
        match event {
            zxdg_output_v1::Event::LogicalPosition { x, y } => {
                a.x = x;
                a.y = y;
            }
            zxdg_output_v1::Event::LogicalSize { width, height } => {
                a.width = width;
                a.height = height;
            }
            _ => {}
        }
    }
}

impl Dispatch<zwlr_layer_surface_v1::ZwlrLayerSurfaceV1, usize> for State {
    fn event(
        state: &mut State,
        _: &zwlr_layer_surface_v1::ZwlrLayerSurfaceV1,
        event: zwlr_layer_surface_v1::Event,
        index: &usize,
        _: &Connection,
        _: &QueueHandle<State>,
    ) {
        match event {
            zwlr_layer_surface_v1::Event::Configure { serial, .. } => {
                if let Some(slot) = state.configured.get_mut(*index) {
                    *slot = Some(serial);
                }
            }
            zwlr_layer_surface_v1::Event::Closed => state.closed = true,
            _ => {}
        }
    }
}

/// What the thread holds: the connection's queue and the globals it draws with.
struct Overlay {
    queue: EventQueue<State>,
    state: State,
    compositor: wl_compositor::WlCompositor,
    shm: wl_shm::WlShm,
    layers: zwlr_layer_shell_v1::ZwlrLayerShellV1,
    outputs: Vec<Output>,
    /// The bars shown now.
    bars: Vec<Bar>,
}

struct Bar {
    layer: zwlr_layer_surface_v1::ZwlrLayerSurfaceV1,
    surface: wl_surface::WlSurface,
    buffer: Option<wl_buffer::WlBuffer>,
}

fn err(what: &str, e: impl std::fmt::Display) -> String {
    format!("Wayland highlight: {what}: {e}")
}

pub fn start() -> Result<(FrameWindow, (u32, u32)), String> {
    let conn = Connection::connect_to_env().map_err(|e| err("cannot connect", e))?;
    let (globals, mut queue) =
        registry_queue_init::<State>(&conn).map_err(|e| err("no globals", e))?;
    let qh = queue.handle();
    let layers: zwlr_layer_shell_v1::ZwlrLayerShellV1 =
        globals.bind(&qh, 1..=4, ()).map_err(|_| {
            "the compositor offers no layer shell (zwlr_layer_shell_v1), so nothing can be drawn \
             over other windows (GNOME has none)"
                .to_string()
        })?;
    let compositor: wl_compositor::WlCompositor = globals
        .bind(&qh, 1..=4, ())
        .map_err(|e| err("no compositor", e))?;
    let shm: wl_shm::WlShm = globals
        .bind(&qh, 1..=1, ())
        .map_err(|e| err("no shared memory", e))?;
    let xdg: ZxdgOutputManagerV1 = globals.bind(&qh, 1..=3, ()).map_err(|_| {
        "the compositor offers no zxdg_output_manager_v1: where its outputs are in the layout \
         is not known"
            .to_string()
    })?;
    let mut state = State::default();
    let mut outputs = Vec::new();
    let listed: Vec<(u32, u32)> = globals.contents().with_list(|l| {
        l.iter()
            .filter(|g| g.interface == "wl_output")
            .map(|g| (g.name, g.version))
            .collect()
    });
    for (name, version) in listed {
        let wl: wl_output::WlOutput = globals.registry().bind(name, version.min(4), &qh, ());
        let index = outputs.len();
        state.areas.push(Area::default());
        xdg.get_xdg_output(&wl, &qh, index);
        outputs.push(Output {
            wl,
            logical: Area::default(),
        });
    }
    queue
        .roundtrip(&mut state)
        .map_err(|e| err("the outputs did not answer", e))?;
    for (o, a) in outputs.iter_mut().zip(&state.areas) {
        o.logical = *a;
    }
    let screen = layout(&outputs).ok_or("the compositor has no output to draw on")?;
    let size = (
        (screen.x + screen.width).max(0) as u32,
        (screen.y + screen.height).max(0) as u32,
    );
    let mut overlay = Overlay {
        queue,
        state,
        compositor,
        shm,
        layers,
        outputs,
        bars: Vec::new(),
    };
    let (tx, rx) = mpsc::channel();
    let thread = std::thread::Builder::new()
        .name("highlight".into())
        .spawn(move || {
            while let Ok(cmd) = rx.recv() {
                let ok = match cmd {
                    Cmd::Show(b) => overlay.show(b).is_ok(),
                    Cmd::Hide => overlay.hide().is_ok(),
                    Cmd::Quit => break,
                };
                if !ok {
                    return;
                }
            }
            let _ = overlay.hide();
        })
        .map_err(|e| err("cannot start its thread", e))?;
    Ok((FrameWindow::serving(tx, thread), size))
}

/// The bounding box of every output (what window positions are measured in).
fn layout(outputs: &[Output]) -> Option<Area> {
    let mut it = outputs
        .iter()
        .map(|o| o.logical)
        .filter(|a| a.width > 0 && a.height > 0);
    let first = it.next()?;
    let (mut x0, mut y0, mut x1, mut y1) = (
        first.x,
        first.y,
        first.x + first.width,
        first.y + first.height,
    );
    for a in it {
        x0 = x0.min(a.x);
        y0 = y0.min(a.y);
        x1 = x1.max(a.x + a.width);
        y1 = y1.max(a.y + a.height);
    }
    Some(Area {
        x: x0,
        y: y0,
        width: x1 - x0,
        height: y1 - y0,
    })
}

/// The four bars of the frame around `b`, in layout coordinates.
fn bars_of(b: Bounds) -> [Area; 4] {
    let g = frame_geometry(b);
    let t = THICKNESS;
    [
        Area {
            x: g.x,
            y: g.y,
            width: g.width,
            height: t,
        },
        Area {
            x: g.x,
            y: g.y + g.height - t,
            width: g.width,
            height: t,
        },
        Area {
            x: g.x,
            y: g.y + t,
            width: t,
            height: g.height - 2 * t,
        },
        Area {
            x: g.x + g.width - t,
            y: g.y + t,
            width: t,
            height: g.height - 2 * t,
        },
    ]
}

/// The part of `a` inside `o`, relative to `o`'s corner.
fn clip(a: Area, o: Area) -> Option<Area> {
    let x0 = a.x.max(o.x);
    let y0 = a.y.max(o.y);
    let x1 = (a.x + a.width).min(o.x + o.width);
    let y1 = (a.y + a.height).min(o.y + o.height);
    (x1 > x0 && y1 > y0).then_some(Area {
        x: x0 - o.x,
        y: y0 - o.y,
        width: x1 - x0,
        height: y1 - y0,
    })
}

impl Overlay {
    fn hide(&mut self) -> Result<(), String> {
        for bar in self.bars.drain(..) {
            bar.layer.destroy();
            bar.surface.destroy();
            if let Some(b) = bar.buffer {
                b.destroy();
            }
        }
        self.queue
            .flush()
            .map_err(|e| err("the connection failed", e))
    }

    fn show(&mut self, b: Bounds) -> Result<(), String> {
        self.hide()?;
        let qh = self.queue.handle();
        // The output the element's top-left corner is on (else the first).
        let output = self
            .outputs
            .iter()
            .find(|o| {
                let a = o.logical;
                (a.x..a.x + a.width).contains(&b.x) && (a.y..a.y + a.height).contains(&b.y)
            })
            .or(self.outputs.first())
            .ok_or("no output")?;
        let parts: Vec<Area> = bars_of(b)
            .into_iter()
            .filter_map(|a| clip(a, output.logical))
            .collect();
        self.state.configured = vec![None; parts.len()];
        self.state.closed = false;
        for (i, a) in parts.iter().enumerate() {
            let surface = self.compositor.create_surface(&qh, ());
            let layer = self.layers.get_layer_surface(
                &surface,
                Some(&output.wl),
                zwlr_layer_shell_v1::Layer::Overlay,
                WINDOW_NAME.into(),
                &qh,
                i,
            );
            layer.set_anchor(
                zwlr_layer_surface_v1::Anchor::Top | zwlr_layer_surface_v1::Anchor::Left,
            );
            layer.set_size(a.width as u32, a.height as u32);
            layer.set_margin(a.y, 0, 0, a.x);
            layer.set_exclusive_zone(-1);
            layer.set_keyboard_interactivity(zwlr_layer_surface_v1::KeyboardInteractivity::None);
            // An empty input region: clicks fall through to the window underneath.
            let region = self.compositor.create_region(&qh, ());
            surface.set_input_region(Some(&region));
            region.destroy();
            surface.commit();
            self.bars.push(Bar {
                layer,
                surface,
                buffer: None,
            });
        }
        self.queue
            .roundtrip(&mut self.state)
            .map_err(|e| err("the compositor did not answer", e))?;
        if self.state.closed {
            return Err("the compositor closed the highlight".into());
        }
        for (i, a) in parts.iter().enumerate() {
            let serial = self.state.configured[i].ok_or("a bar was never configured")?;
            let buffer = self.buffer(a.width, a.height, &qh)?;
            let bar = &mut self.bars[i];
            bar.layer.ack_configure(serial);
            bar.surface.attach(Some(&buffer), 0, 0);
            bar.surface.damage(0, 0, a.width, a.height);
            bar.surface.commit();
            bar.buffer = Some(buffer);
        }
        self.queue
            .roundtrip(&mut self.state)
            .map(|_| ())
            .map_err(|e| err("the compositor did not answer", e))
    }

    /// A buffer of one colour, `width` × `height`.
    fn buffer(
        &self,
        width: i32,
        height: i32,
        qh: &QueueHandle<State>,
    ) -> Result<wl_buffer::WlBuffer, String> {
        let len = (width as usize) * (height as usize) * 4;
        let fd = rustix::fs::memfd_create("treeglass-highlight", rustix::fs::MemfdFlags::CLOEXEC)
            .map_err(|e| err("no memory file", e))?;
        let mut file = std::fs::File::from(fd);
        file.write_all(&PIXEL.repeat(len / 4))
            .map_err(|e| err("cannot fill the buffer", e))?;
        let pool = self.shm.create_pool(file.as_fd(), len as i32, qh, ());
        let buffer = pool.create_buffer(
            0,
            width,
            height,
            width * 4,
            wl_shm::Format::Argb8888,
            qh,
            (),
        );
        pool.destroy();
        Ok(buffer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_surround_the_element_and_are_clipped_to_their_output() {
        let b = Bounds {
            x: 10,
            y: 20,
            width: 100,
            height: 50,
        };
        let [top, bottom, left, right] = bars_of(b);
        assert_eq!((top.x, top.y, top.width, top.height), (7, 17, 106, 3));
        assert_eq!((bottom.y, bottom.height), (70, 3));
        assert_eq!((left.x, left.y, left.width, left.height), (7, 20, 3, 50));
        assert_eq!((right.x, right.width), (110, 3));
        let out = Area {
            x: 0,
            y: 0,
            width: 1600,
            height: 1200,
        };
        // An element in the corner: the bars beyond the output are cut.
        let corner = Bounds {
            x: 0,
            y: 0,
            width: 10,
            height: 10,
        };
        let parts: Vec<Area> = bars_of(corner)
            .into_iter()
            .filter_map(|a| clip(a, out))
            .collect();
        assert_eq!(
            parts.len(),
            2,
            "only the bottom and right bars are on the output"
        );
        // On a second output to the right, margins are relative to its corner.
        let second = Area {
            x: 1600,
            y: 0,
            width: 800,
            height: 600,
        };
        let a = clip(
            Area {
                x: 1700,
                y: 100,
                width: 50,
                height: 3,
            },
            second,
        )
        .unwrap();
        assert_eq!((a.x, a.y), (100, 100));
    }
}
