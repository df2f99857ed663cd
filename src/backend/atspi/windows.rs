//! Where an element is and what has the focus: its window raised and found, the keyboard
//! focus awaited, its place on the screen.

use super::*;

impl AtspiBackend {
    /// Checks the element's states until it says it is focused (true) or 800 ms have passed
    /// (false); with `Focusing::Grab`, asks for the focus (GrabFocus) before each look, and
    /// returns the last answer.
    pub(super) async fn until_focused(
        &self,
        c: &Caller,
        obj: &ObjRef,
        how: Focusing,
    ) -> Result<(bool, String), BackendError> {
        let until = Instant::now() + Duration::from_millis(800);
        let mut answer = String::new();
        // Looks every 10 ms; asks again (GrabFocus) every 40 ms at most.
        for look in 0u32.. {
            if how == Focusing::Grab && look % 4 == 0 {
                answer = match c.grab_focus(obj).await {
                    Ok(ok) => ok.to_string(),
                    Err(e @ (BackendError::AppGone { .. } | BackendError::Vanished(_))) => {
                        return Err(e);
                    }
                    Err(e) => e.to_string(),
                };
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
            if states_of(&c.state(obj).await?).has(crate::model::State::Focused) {
                return Ok((true, answer));
            }
            if Instant::now() >= until {
                break;
            }
        }
        Ok((false, answer))
    }

    /// Selects the whole text of a field about to be typed into, and checks it holds: a busy
    /// page (Chromium scrolling a far field into view) moves the caret to the end after its
    /// focus and after our selection, and the typed text would then be appended to the old.
    /// Selects again while it does not hold, for up to 600 ms; then nothing is typed. A
    /// toolkit that cannot say its selection is taken at its word.
    pub(super) async fn select_all(&self, c: &Caller, obj: &ObjRef) -> Result<bool, BackendError> {
        let count = c.character_count(obj).await?;
        let select = || async {
            match c.set_selection(obj, 0, count).await {
                Ok(ok) => Ok(ok),
                Err(BackendError::Failed(_)) => c.add_selection(obj, 0, count).await,
                Err(e) => Err(e),
            }
        };
        let mut ok = select().await?;
        if count == 0 {
            return Ok(ok);
        }
        let until = Instant::now() + Duration::from_millis(600);
        let mut held = 0;
        loop {
            tokio::time::sleep(Duration::from_millis(20)).await;
            let whole = match c.selection(obj).await {
                Ok((a, b)) => a.min(b) == 0 && a.max(b) >= count,
                Err(BackendError::Failed(_)) => return Ok(ok),
                Err(e) => return Err(e),
            };
            if whole {
                // Twice in a row, 20 ms apart: a caret move still pending has had its turn.
                held += 1;
                if held >= 2 {
                    return Ok(ok);
                }
                continue;
            }
            held = 0;
            tracing::debug!(count, "the field's selection did not hold; selecting again");
            if Instant::now() >= until {
                return Err(BackendError::Unsupported(
                    "the field's text would not stay selected (the app kept moving the caret); \
                     nothing was typed"
                        .into(),
                ));
            }
            ok = select().await?;
        }
    }

    /// Makes the devices keys come from, where the desktop makes them per write (EIS), and when
    /// they were made only now, waits for the app to answer once (its state): its main loop
    /// has then turned since the desktop's seat announced them, and it listens to them
    /// (`desktop::eis::Held`).
    pub(super) async fn prepare_input(&self, c: &Caller, obj: &ObjRef) -> Result<(), BackendError> {
        if self.input.prepare().await? {
            c.state(obj).await?;
        }
        Ok(())
    }

    /// The window of the app on `bus` that was activated for input in the last 2 s.
    pub(super) fn raised(&self, bus: &str) -> Option<desktop::Window> {
        self.windows
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(bus)
            .filter(|(_, at)| at.elapsed() < Duration::from_secs(2))
            .map(|(w, _)| w.clone())
    }

    /// The app's window for a frame titled `title`: the one last activated for input, else
    /// the one with that title, else its largest.
    pub(super) async fn window_of(
        &self,
        c: &Caller,
        bus: &str,
        title: &str,
    ) -> Result<desktop::Window, BackendError> {
        if let Some(w) = self
            .raised(bus)
            .filter(|w| title.is_empty() || w.title == title)
        {
            return Ok(w);
        }
        let pid = c.unix_pid(bus).await?;
        let wins = self.input.windows_of(pid).await?;
        let by_title = (!title.is_empty())
            .then(|| wins.iter().find(|w| w.title == title).cloned())
            .flatten();
        by_title.or_else(|| wins.into_iter().next()).ok_or_else(|| {
            BackendError::NoInput(format!(
                "{} shows no window of process {pid}: synthesized input cannot reach it",
                self.input.desktop()
            ))
        })
    }

    /// Where the desktop can neither find nor raise the element's window but can send keys to
    /// the active one (GNOME without treeglass's extension): the keys may go only when the app
    /// says that window is the active one (its frame's `active` state). `why`: why it could not
    /// be found, which says what to run.
    pub(super) async fn already_active(
        &self,
        c: &Caller,
        obj: &ObjRef,
        title: &AppText,
        why: String,
    ) -> Result<bool, BackendError> {
        let frame = self.frame_of(c, obj).await?;
        if states_of(&c.state(&frame).await?).has(crate::model::State::Active) {
            return Ok(true);
        }
        Err(BackendError::NoInput(format!(
            "the app does not say its window {} is the active one, and treeglass cannot raise \
             it here (some toolkits, GTK 4 among them, never say so): make it the active window yourself, or: {why}",
            crate::model::quoted(title.as_str(), 60)
        )))
    }

    /// The element's top-level window in the app's tree: the ancestor whose parent is the
    /// application (at most 256 levels up, and never round a cycle).
    pub(super) async fn frame_of(&self, c: &Caller, obj: &ObjRef) -> Result<ObjRef, BackendError> {
        let mut cur = obj.clone();
        let mut seen = HashSet::new();
        for _ in 0..256 {
            if cur.path == ROOT_PATH || !seen.insert(cur.path.clone()) {
                break;
            }
            let parent = c.parent(&cur).await?;
            if parent.bus != obj.bus || parent.path == ROOT_PATH {
                return Ok(cur);
            }
            cur = parent;
        }
        Err(BackendError::Unsupported(
            "the element has no window of its own in the app's tree".into(),
        ))
    }

    /// Where the element's window is placed on a Wayland screen: the offset from the app's
    /// coordinates (`coords`) to the screen's, from the compositor's window and the frame as
    /// the app draws it (see `desktop::placement`).
    pub(super) async fn placed(
        &self,
        c: &Caller,
        obj: &ObjRef,
        toolkit: Toolkit,
        coords: Coords,
    ) -> Result<desktop::placement::Placed, BackendError> {
        let frame = self.frame_of(c, obj).await?;
        let (fx, fy, fw, fh) = c.extents(&frame, coords).await?;
        let title = c.name(&frame).await.unwrap_or_default();
        let win = self.window_of(c, &obj.bus, &title).await?;
        let rect = |(x, y, width, height): (i32, i32, i32, i32)| desktop::Rect {
            x,
            y,
            width,
            height,
        };
        let origin = toolkit::wayland_origin(toolkit);
        if let Some(p) =
            desktop::placement::place_on_surface(origin, rect((fx, fy, fw, fh)), win.surface)
        {
            return Ok(p);
        }
        let mut seen = desktop::placement::Seen {
            frame: rect((fx, fy, fw, fh)),
            children: Vec::new(),
            content: win.rect,
            tiled: win.tiled,
        };
        let filled = (fw, fh) == (win.rect.width, win.rect.height);
        if origin == desktop::placement::Origin::SurfaceChildren && !filled && !win.tiled {
            let raw = reader::read_raw(c, &frame, toolkit).await?;
            for kid in reader::list(c, &raw).await?.unwrap_or_default() {
                let showing = states_of(&c.state(&kid).await?).has(crate::model::State::Showing);
                if showing && let Ok(e) = c.extents(&kid, coords).await {
                    seen.children.push(rect(e));
                }
            }
        }
        desktop::placement::place(origin, &seen).map_err(|why| {
            BackendError::NoInput(format!(
                "where the window {} is on screen is not known: {why}",
                crate::model::quoted(&title, 60)
            ))
        })
    }

    /// Where the element is: its extents in the coordinates its toolkit answers right
    /// ([`Coords::of`]), and the offset that takes them to the screen. On X11 `SCREEN`
    /// coordinates are the screen's (no offset), and `WINDOW` ones (GTK 4) are placed by the X
    /// window's position. On Wayland no toolkit knows where its window is: the window's place
    /// comes from the compositor. `SCREEN` extents that lie — (0, 0) for an element its
    /// window places elsewhere, as GTK 4.18 answers for every element — give no place at all.
    pub(super) async fn placement(
        &self,
        c: &Caller,
        obj: &ObjRef,
        toolkit: Toolkit,
    ) -> Result<Placement, BackendError> {
        let coords = Coords::of(toolkit);
        let (x, y, width, height) = c.extents(obj, coords).await?;
        let app = Bounds {
            x,
            y,
            width,
            height,
        };
        if coords == Coords::Screen && (x, y) == (0, 0) {
            let (wx, wy, _, _) = c.extents(obj, Coords::Window).await?;
            if (wx, wy) != (0, 0) {
                return Err(BackendError::Unsupported(format!(
                    "the app answers (0, 0) as the element's place on screen, and ({wx}, {wy}) \
                     as its place in its window: its screen coordinates are not true, so where \
                     the element is on screen is not known (nothing is clicked or framed there; \
                     toolkit {}, which is not known to answer WINDOW coordinates right)",
                    toolkit.as_str()
                )));
            }
        }
        let (dx, dy) = match (self.input.coordinates(), coords) {
            (desktop::Coordinates::Screen, Coords::Screen) => (0, 0),
            (desktop::Coordinates::Screen, Coords::Window) => {
                let win = self.window_of(c, &obj.bus, "").await?;
                (win.rect.x, win.rect.y)
            }
            (desktop::Coordinates::Window, _) => {
                let p = self.placed(c, obj, toolkit, coords).await?;
                (p.dx, p.dy)
            }
        };
        Ok(Placement {
            app,
            coords,
            dx,
            dy,
        })
    }

    /// The element's extents in screen coordinates (see [`Self::placement`]).
    pub(super) async fn screen_extents(
        &self,
        c: &Caller,
        obj: &ObjRef,
        toolkit: Toolkit,
    ) -> Result<Bounds, BackendError> {
        Ok(self.placement(c, obj, toolkit).await?.on_screen())
    }

    /// Where to click the element: its centre on screen, once the app itself places that point
    /// inside the element (its own hit test, [`Self::hit`], in the coordinates the toolkit
    /// answers right). Refused, with nothing sent, when it has no area or the app places the
    /// point elsewhere or cannot say: a click must land on the named element and nothing else.
    pub(super) async fn click_point(
        &self,
        c: &Caller,
        obj: &ObjRef,
    ) -> Result<(i32, i32), BackendError> {
        let toolkit = self.toolkit(c, &obj.bus).await?;
        let p = self.placement(c, obj, toolkit).await?;
        let a = p.app;
        if a.width <= 0 || a.height <= 0 {
            return Err(BackendError::Unsupported(
                "the element has no area on screen to click".into(),
            ));
        }
        let (ax, ay) = (a.x + a.width / 2, a.y + a.height / 2);
        let word = match p.coords {
            Coords::Screen => "SCREEN",
            Coords::Window => "WINDOW",
        };
        let frame = self.frame_of(c, obj).await?;
        let mut hit = self.hit(c, &frame, obj, ax, ay, p.coords).await;
        // A window whose hit test does not reach into what another process draws (Firefox's
        // frame and its pages: nothing at any point of the page): asked of the element's
        // parent instead, which still says whether the point is the element's or a sibling's.
        if matches!(hit, Ok(Hit::Nothing)) {
            let parent = c.parent(obj).await?;
            if parent.bus == obj.bus && parent.path != ROOT_PATH {
                hit = self.hit(c, &parent, obj, ax, ay, p.coords).await;
            }
        }
        match hit {
            Ok(Hit::Inside) => {}
            Ok(Hit::Nothing) => {
                return Err(BackendError::Unsupported(format!(
                    "the app places nothing of its window at ({ax}, {ay}) ({word} coordinates), \
                     the centre of the element's extents: a click there would land on something \
                     else, so none was sent"
                )));
            }
            Ok(Hit::Elsewhere(what)) => {
                return Err(BackendError::Unsupported(format!(
                    "the app places ({ax}, {ay}) ({word} coordinates), the centre of the \
                     element's extents, {what}: a click there would land on something else, so \
                     none was sent"
                )));
            }
            Err(e @ (BackendError::AppGone { .. } | BackendError::Vanished(_))) => return Err(e),
            Err(e) => {
                return Err(BackendError::Unsupported(format!(
                    "the app could not say what is at ({ax}, {ay}) ({word} coordinates), the \
                     centre of the element's extents ({e}), so no click was sent"
                )));
            }
        }
        Ok((ax.saturating_add(p.dx), ay.saturating_add(p.dy)))
    }
}

/// What the app's hit test found at a point.
pub(super) enum Hit {
    /// The element, or something inside it.
    Inside,
    /// Nothing at all.
    Nothing,
    /// Something else (or nothing): what, for the refusal.
    Elsewhere(String),
}

/// The most levels the hit test goes down, and up again from what it found.
const HIT_DEPTH: usize = 64;

impl AtspiBackend {
    /// The app's own hit test: what the window `frame` holds at (x, y) (`coords`), asked
    /// level by level down from the frame (`Component.GetAccessibleAtPoint`, as Orca finds
    /// what is under the pointer: at-spi2-atk and Qt answer the child at the point, GTK 4 and
    /// Chromium the deepest descendant), then whether that is `obj` or lies inside it (its
    /// parents, up to the frame). Not `Component.Contains`: GTK 4.18 compares the point with
    /// the element's position instead of its size, and answers false inside every element.
    pub(super) async fn hit(
        &self,
        c: &Caller,
        frame: &ObjRef,
        obj: &ObjRef,
        x: i32,
        y: i32,
        coords: Coords,
    ) -> Result<Hit, BackendError> {
        let mut cur = frame.clone();
        let mut found = None;
        for _ in 0..HIT_DEPTH {
            match c.accessible_at_point(&cur, x, y, coords).await? {
                Some(at) if at == *obj => return Ok(Hit::Inside),
                Some(at) if at != cur && Some(&at) != found.as_ref() => {
                    found = Some(at.clone());
                    cur = at;
                }
                _ => break,
            }
        }
        let Some(deepest) = found else {
            return Ok(Hit::Nothing);
        };
        let mut up = deepest.clone();
        let mut seen = HashSet::new();
        for _ in 0..HIT_DEPTH {
            if up == *obj {
                return Ok(Hit::Inside);
            }
            if up == *frame || up.path == ROOT_PATH || !seen.insert(up.path.clone()) {
                break;
            }
            up = c.parent(&up).await?;
        }
        let role = match c.role(&deepest).await {
            Ok(r) => bus::role_of(r).1,
            Err(_) => "an element".into(),
        };
        let name = c.name(&deepest).await.unwrap_or_default();
        Ok(Hit::Elsewhere(format!(
            "inside another element ({role} {})",
            crate::model::quoted(&name, 60)
        )))
    }
}

/// An element's extents as its app answers them, in which coordinates, and the offset that
/// takes them to the screen.
#[derive(Debug, Clone, Copy)]
pub(super) struct Placement {
    pub app: Bounds,
    pub coords: Coords,
    pub dx: i32,
    pub dy: i32,
}

impl Placement {
    pub fn on_screen(&self) -> Bounds {
        Bounds {
            x: self.app.x.saturating_add(self.dx),
            y: self.app.y.saturating_add(self.dy),
            ..self.app
        }
    }
}
