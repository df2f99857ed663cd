//! The calls: one public method of [`Caller`] each, every one a call libatspi itself sends, with
//! the toolkits it was seen to handle. Only these are sent to applications (see `mod.rs`).

use super::*;

impl Caller {
    /// `Cache.GetItems` on the app's cache object: most of the tree in one call. GTK 3 (most of
    /// it), GTK 4 and Chromium answer; Qt 5 and Qt 6 answer an empty list.
    ///
    /// One call that makes the app describe its whole cache: on a 28,000-node page Chromium
    /// takes 0.7–3 s and Firefox 2.3–3.5 s to answer, all of it on their main thread (nothing
    /// else is answered meanwhile), so this call alone waits up to [`CACHE_CALL`].
    pub async fn cache_items(&self, bus: &str) -> Result<Vec<CacheItemWire>, BackendError> {
        let patient = Caller {
            call_timeout: self.call_timeout.max(CACHE_CALL),
            ..self.clone()
        };
        patient
            .call(bus, CACHE_PATH, IFACE_CACHE, "GetItems", &())
            .await
    }

    // ---- Accessible methods (GTK 3, GTK 4, Qt 5, Qt 6, Chromium) --------------------------------

    pub async fn role(&self, obj: &ObjRef) -> Result<u32, BackendError> {
        self.call(&obj.bus, &obj.path, IFACE_ACCESSIBLE, "GetRole", &())
            .await
    }

    pub async fn state(&self, obj: &ObjRef) -> Result<Vec<u32>, BackendError> {
        self.call(&obj.bus, &obj.path, IFACE_ACCESSIBLE, "GetState", &())
            .await
    }

    pub async fn interfaces(&self, obj: &ObjRef) -> Result<Vec<String>, BackendError> {
        self.call(&obj.bus, &obj.path, IFACE_ACCESSIBLE, "GetInterfaces", &())
            .await
    }

    /// The children, in order, without null references. Only for an element proven
    /// [`Listable`]: `GetChildren` makes the toolkit create an object per child, and on an
    /// element that manages its descendants that is the whole sheet of a spreadsheet (LibreOffice
    /// Calc's table reports 2³¹−1 children; one such call left Calc burning a core and
    /// answering nothing for minutes — the ATK bridge of at-spi2-core 2.46 has no guard).
    pub async fn children(&self, of: &Listable<'_>) -> Result<Vec<ObjRef>, BackendError> {
        let obj = of.0;
        let kids: Vec<WireRef> = self
            .call(&obj.bus, &obj.path, IFACE_ACCESSIBLE, "GetChildren", &())
            .await?;
        Ok(kids
            .iter()
            .map(ObjRef::from_wire)
            .filter(|k| !k.is_null())
            .collect())
    }

    /// `GetChildAtIndex(i)`: one child (a null reference when there is none at `i`). Only for
    /// an element proven [`Listable`], like [`Caller::children`]: libatspi sends it for
    /// `atspi_accessible_get_child_at_index`, which pyatspi's own tree walk (`acc[i]`) uses on
    /// every element of every matrix app in the benchmarks. `audit` asks it once per element
    /// whose `GetIndexInParent` disagrees with where its parent listed it, to confirm the
    /// mismatch (Accerciser's `ParentChildIndexMatch` makes the same two calls).
    pub async fn child_at_index(
        &self,
        of: &Listable<'_>,
        index: i32,
    ) -> Result<Option<ObjRef>, BackendError> {
        let obj = of.0;
        let r: WireRef = self
            .call(
                &obj.bus,
                &obj.path,
                IFACE_ACCESSIBLE,
                "GetChildAtIndex",
                &(index,),
            )
            .await?;
        let r = ObjRef::from_wire(&r);
        Ok((!r.is_null()).then_some(r))
    }

    /// `GetAttributes`: the element's object attributes (`posinset`, `setsize`, `tag`, …), which
    /// libatspi reads for `atspi_accessible_get_attributes` and Orca reads of every element it
    /// presents. `audit` asks it of radio buttons (a set position stands for a group, as in
    /// Accerciser's `RadioInSet`) and of a page's named buttons, images and cells on screen
    /// (Chromium's `name-from` and both engines' `explicit-name` say whether the page or the
    /// browser named them).
    pub async fn attributes(
        &self,
        obj: &ObjRef,
    ) -> Result<std::collections::HashMap<String, String>, BackendError> {
        self.call(&obj.bus, &obj.path, IFACE_ACCESSIBLE, "GetAttributes", &())
            .await
    }

    /// The relation set: (relation type, targets).
    pub async fn relations(&self, obj: &ObjRef) -> Result<Vec<(u32, Vec<ObjRef>)>, BackendError> {
        let rels: Vec<(u32, Vec<(String, OwnedObjectPath)>)> = self
            .call(&obj.bus, &obj.path, IFACE_ACCESSIBLE, "GetRelationSet", &())
            .await?;
        Ok(rels
            .into_iter()
            .map(|(kind, targets)| {
                (
                    kind,
                    targets
                        .iter()
                        .map(ObjRef::from_wire)
                        .filter(|t| !t.is_null())
                        .collect(),
                )
            })
            .collect())
    }

    // ---- Properties.Get, one property at a time (every toolkit) ---------------------------------

    /// `ChildCount`: what the toolkit says, even for an element that manages its descendants
    /// (Calc's sheet: 2147483647). Asked before any `GetChildren` where the cache did not say.
    pub async fn child_count(&self, obj: &ObjRef) -> Result<i32, BackendError> {
        self.get(obj, IFACE_ACCESSIBLE, "ChildCount").await
    }

    /// `Parent`: the element's parent (a null reference at the top).
    pub async fn parent(&self, obj: &ObjRef) -> Result<ObjRef, BackendError> {
        let p: WireRef = self.get(obj, IFACE_ACCESSIBLE, "Parent").await?;
        Ok(ObjRef::from_wire(&p))
    }

    /// `Collection.GetMatches` with a rule on roles alone: every descendant of `root` whose
    /// AT-SPI role is one of `roles`, in canonical (document) order, found by the app in one
    /// call — libatspi's `atspi_collection_get_matches`, which Orca's structural navigation
    /// sends. The ATK bridge (at-spi2-core 2.46) walks the whole subtree to answer, *into*
    /// elements that manage their descendants, with no cap: on LibreOffice Calc that is the
    /// million-row sheet, so this is sent only to toolkits whose every element is a real one
    /// (the `QUIRKS` table's `Narrows` rows). Seen: Chromium on the 2,000-row page (2,000 check boxes in 0.18 s)
    /// and the form page, Firefox ESR 153 on the form page (every role its targets name).
    pub async fn matches_by_role(
        &self,
        root: &ObjRef,
        roles: &[u32],
    ) -> Result<Vec<ObjRef>, BackendError> {
        // AtspiCollectionMatchType: ALL = 1, ANY = 2; AtspiCollectionSortOrder: CANONICAL = 1.
        const ALL: i32 = 1;
        const ANY: i32 = 2;
        const CANONICAL: u32 = 1;
        let mut bits = vec![0i32; 5];
        for r in roles {
            if let Some(word) = bits.get_mut((*r / 32) as usize) {
                *word |= (1u32 << (r % 32)) as i32;
            }
        }
        let rule = (
            vec![0i32, 0i32],
            ALL,
            std::collections::HashMap::<String, String>::new(),
            ALL,
            bits,
            ANY,
            Vec::<String>::new(),
            ALL,
            false,
        );
        let found: Vec<WireRef> = self
            .call(
                &root.bus,
                &root.path,
                IFACE_COLLECTION,
                "GetMatches",
                &(rule, CANONICAL, 0i32, true),
            )
            .await?;
        Ok(found
            .iter()
            .map(ObjRef::from_wire)
            .filter(|k| !k.is_null())
            .collect())
    }

    /// `GetIndexInParent` (LibreOffice: a cell's index is row × columns + column).
    pub async fn index_in_parent(&self, obj: &ObjRef) -> Result<i32, BackendError> {
        self.call(
            &obj.bus,
            &obj.path,
            IFACE_ACCESSIBLE,
            "GetIndexInParent",
            &(),
        )
        .await
    }

    pub async fn name(&self, obj: &ObjRef) -> Result<String, BackendError> {
        self.get(obj, IFACE_ACCESSIBLE, "Name").await
    }

    pub async fn description(&self, obj: &ObjRef) -> Result<String, BackendError> {
        self.get(obj, IFACE_ACCESSIBLE, "Description").await
    }

    pub async fn toolkit_name(&self, app: &ObjRef) -> Result<String, BackendError> {
        self.get(app, IFACE_APPLICATION, "ToolkitName").await
    }

    pub async fn toolkit_version(&self, app: &ObjRef) -> Result<String, BackendError> {
        self.get(app, IFACE_APPLICATION, "Version").await
    }

    /// One numeric property of `Value`. Chromium answers `Failed` for a minimum it cannot read
    /// (its split-view resize handle) and nothing else happens.
    pub async fn value(&self, obj: &ObjRef, prop: ValueProp) -> Result<f64, BackendError> {
        self.get(obj, IFACE_VALUE, prop.name()).await
    }

    pub async fn character_count(&self, obj: &ObjRef) -> Result<i32, BackendError> {
        self.get(obj, IFACE_TEXT, "CharacterCount").await
    }

    pub async fn n_actions(&self, obj: &ObjRef) -> Result<i32, BackendError> {
        self.get(obj, IFACE_ACTION, "NActions").await
    }

    // ---- Action -------------------------------------------------------------------------------

    /// The non-localized name of action `index` (`click`, `press`, `check`): what writes match
    /// on and workflow files store.
    pub async fn action_name(&self, obj: &ObjRef, index: i32) -> Result<String, BackendError> {
        self.call(&obj.bus, &obj.path, IFACE_ACTION, "GetName", &(index,))
            .await
    }

    /// `(localized name, description, key binding)` of every action, for display only: some
    /// bridges fill the name with `;;` (Chromium) or nothing (LibreOffice).
    pub async fn action_list(
        &self,
        obj: &ObjRef,
    ) -> Result<Vec<(String, String, String)>, BackendError> {
        self.call(&obj.bus, &obj.path, IFACE_ACTION, "GetActions", &())
            .await
    }

    pub async fn do_action(&self, obj: &ObjRef, index: i32) -> Result<bool, BackendError> {
        self.call(&obj.bus, &obj.path, IFACE_ACTION, "DoAction", &(index,))
            .await
    }

    // ---- Text / EditableText ----------------------------------------------------------------

    pub async fn text(&self, obj: &ObjRef, start: i32, end: i32) -> Result<String, BackendError> {
        self.call(&obj.bus, &obj.path, IFACE_TEXT, "GetText", &(start, end))
            .await
    }

    pub async fn set_selection(
        &self,
        obj: &ObjRef,
        start: i32,
        end: i32,
    ) -> Result<bool, BackendError> {
        self.call(
            &obj.bus,
            &obj.path,
            IFACE_TEXT,
            "SetSelection",
            &(0i32, start, end),
        )
        .await
    }

    /// The first selection's (start, end) offsets — libatspi's `atspi_text_get_selection`,
    /// which Orca sends on caret moves. Sent before typing into a field (the keyboard path);
    /// seen on the Chromium and Firefox form pages and Chromium's 2,000-row page
    /// (`tests/matrix/matrix_write.rs`, `tests/matrix/big_page.rs`).
    pub async fn selection(&self, obj: &ObjRef) -> Result<(i32, i32), BackendError> {
        self.call(&obj.bus, &obj.path, IFACE_TEXT, "GetSelection", &(0i32,))
            .await
    }

    pub async fn add_selection(
        &self,
        obj: &ObjRef,
        start: i32,
        end: i32,
    ) -> Result<bool, BackendError> {
        self.call(
            &obj.bus,
            &obj.path,
            IFACE_TEXT,
            "AddSelection",
            &(start, end),
        )
        .await
    }

    /// Chromium's inputs have no EditableText; GTK answers true for a disabled entry and
    /// changes it (so preconditions are checked before this is sent).
    pub async fn set_text_contents(&self, obj: &ObjRef, text: &str) -> Result<bool, BackendError> {
        self.call(
            &obj.bus,
            &obj.path,
            IFACE_EDITABLE_TEXT,
            "SetTextContents",
            &(text,),
        )
        .await
    }

    // ---- Value --------------------------------------------------------------------------------

    /// `Properties.Set(Value, CurrentValue)`, as libatspi's `atspi_value_set_current_value`.
    pub async fn set_current_value(&self, obj: &ObjRef, v: f64) -> Result<(), BackendError> {
        let value = zbus::zvariant::Value::from(v);
        self.call(
            &obj.bus,
            &obj.path,
            IFACE_PROPS,
            "Set",
            &(IFACE_VALUE, "CurrentValue", value),
        )
        .await
    }

    // ---- Selection ----------------------------------------------------------------------------

    pub async fn selected_child(
        &self,
        obj: &ObjRef,
        index: i32,
    ) -> Result<Option<ObjRef>, BackendError> {
        let w: WireRef = self
            .call(
                &obj.bus,
                &obj.path,
                IFACE_SELECTION,
                "GetSelectedChild",
                &(index,),
            )
            .await?;
        let o = ObjRef::from_wire(&w);
        Ok((!o.is_null()).then_some(o))
    }

    pub async fn select_child(&self, obj: &ObjRef, index: i32) -> Result<bool, BackendError> {
        self.call(
            &obj.bus,
            &obj.path,
            IFACE_SELECTION,
            "SelectChild",
            &(index,),
        )
        .await
    }

    // ---- Component ----------------------------------------------------------------------------

    /// `Component.GetExtents` in `coords` (which a toolkit answers right: [`Coords::of`]).
    pub async fn extents(
        &self,
        obj: &ObjRef,
        coords: Coords,
    ) -> Result<(i32, i32, i32, i32), BackendError> {
        self.call(
            &obj.bus,
            &obj.path,
            IFACE_COMPONENT,
            "GetExtents",
            &(coords as u32,),
        )
        .await
    }

    /// `Component.ScrollTo(ANYWHERE)`: the toolkit scrolls the element into view (libatspi's
    /// `atspi_component_scroll_to`; Orca sends it to web content in browse mode). Sent only to
    /// Gecko, before a write, for an element it lays out nowhere: Firefox ESR gives an
    /// off-screen check box of the 2,000-row page no action (`NActions` 0) and extents
    /// (-1, -1, -1, -1) until it is scrolled to; after `ScrollTo` → true it has `check` and
    /// extents on screen (measured on the page, the app answering afterwards). Also sent for an
    /// element scrolled out of the view (laid out, not showing), which a click cannot reach.
    pub async fn scroll_to(&self, obj: &ObjRef) -> Result<bool, BackendError> {
        /// `ATSPI_SCROLL_ANYWHERE`.
        const ANYWHERE: u32 = 6;
        self.call(
            &obj.bus,
            &obj.path,
            IFACE_COMPONENT,
            "ScrollTo",
            &(ANYWHERE,),
        )
        .await
    }

    /// `Component.GetAccessibleAtPoint` in `coords`: the deepest child at a point, how Orca
    /// and Accerciser reach the cells of a table that manages its descendants (LibreOffice Calc
    /// answers in well under a millisecond). `None` for a null reference.
    pub async fn accessible_at_point(
        &self,
        obj: &ObjRef,
        x: i32,
        y: i32,
        coords: Coords,
    ) -> Result<Option<ObjRef>, BackendError> {
        let r: WireRef = self
            .call(
                &obj.bus,
                &obj.path,
                IFACE_COMPONENT,
                "GetAccessibleAtPoint",
                &(x, y, coords as u32),
            )
            .await?;
        let r = ObjRef::from_wire(&r);
        Ok((!r.is_null()).then_some(r))
    }

    // ---- Table (LibreOffice Calc and Writer, GTK 3 tree views, Chromium tables) -------------

    /// `NRows` and `NColumns`: Calc's sheet answers 1048576 × 16384.
    pub async fn table_size(&self, obj: &ObjRef) -> Result<(i32, i32), BackendError> {
        let (rows, cols) = tokio::join!(
            self.get::<i32>(obj, IFACE_TABLE, "NRows"),
            self.get::<i32>(obj, IFACE_TABLE, "NColumns")
        );
        Ok((rows?, cols?))
    }

    /// `Table.GetAccessibleAt(row, column)`: one cell, made on demand by the toolkit (what
    /// Orca reads a visible range with).
    pub async fn table_cell(
        &self,
        obj: &ObjRef,
        row: i32,
        col: i32,
    ) -> Result<Option<ObjRef>, BackendError> {
        let r: WireRef = self
            .call(
                &obj.bus,
                &obj.path,
                IFACE_TABLE,
                "GetAccessibleAt",
                &(row, col),
            )
            .await?;
        let r = ObjRef::from_wire(&r);
        Ok((!r.is_null()).then_some(r))
    }

    /// `Table.GetIndexAt(row, column)`: the cell's index in the table's own numbering (what
    /// `GetRowAtIndex` and `GetColumnAtIndex` take). `audit` asks it for the first 4 × 4 cells
    /// of a showing table, as Accerciser's `TableRowColIndex` samples a table; no cell is made
    /// beyond those a window shows first.
    pub async fn table_index_at(
        &self,
        obj: &ObjRef,
        row: i32,
        col: i32,
    ) -> Result<i32, BackendError> {
        self.call(&obj.bus, &obj.path, IFACE_TABLE, "GetIndexAt", &(row, col))
            .await
    }

    /// `Table.GetRowAtIndex` and `GetColumnAtIndex` of a child's index in parent.
    pub async fn table_position(
        &self,
        obj: &ObjRef,
        index: i32,
    ) -> Result<(i32, i32), BackendError> {
        let arg = (index,);
        let (row, col) = tokio::join!(
            self.call::<_, i32>(&obj.bus, &obj.path, IFACE_TABLE, "GetRowAtIndex", &arg),
            self.call::<_, i32>(&obj.bus, &obj.path, IFACE_TABLE, "GetColumnAtIndex", &arg)
        );
        Ok((row?, col?))
    }

    /// GTK 4.8 answers an error.
    pub async fn grab_focus(&self, obj: &ObjRef) -> Result<bool, BackendError> {
        self.call(&obj.bus, &obj.path, IFACE_COMPONENT, "GrabFocus", &())
            .await
    }

    // ---- Registry and device event controller (at-spi2-registryd, not an app) ----------------

    /// Asks apps to send one kind of event (they only emit kinds some listener registered).
    /// Sent to the registry, which tells every app; also sent once before the first tree read
    /// to wake ATK bridges (see `WAKE_EVENT`). Every app of the matrix keeps working after it.
    pub async fn register_event(&self, event: &str) -> Result<(), BackendError> {
        self.call(
            REGISTRY,
            REGISTRY_PATH,
            IFACE_REGISTRY,
            "RegisterEvent",
            &(event,),
        )
        .await
    }

    /// The desktop's children: one root per registered application.
    pub async fn desktop_apps(&self) -> Result<Vec<ObjRef>, BackendError> {
        let desktop = ObjRef::new(REGISTRY, ROOT_PATH);
        self.children(&Listable(&desktop)).await
    }

    // ---- The session bus: the accessibility bus launcher (not an app) ------------------------

    /// `org.a11y.Bus.GetAddress`: where the accessibility bus is (asked on the session bus).
    pub async fn a11y_bus_address(&self) -> Result<String, BackendError> {
        self.call(
            "org.a11y.Bus",
            "/org/a11y/bus",
            "org.a11y.Bus",
            "GetAddress",
            &(),
        )
        .await
    }

    /// `org.a11y.Status.IsEnabled` (asked on the session bus): Qt registers only when it is
    /// true (or with `QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1`).
    pub async fn a11y_is_enabled(&self) -> Result<bool, BackendError> {
        let v: OwnedValue = self
            .call(
                "org.a11y.Bus",
                "/org/a11y/bus",
                IFACE_PROPS,
                "Get",
                &("org.a11y.Status", "IsEnabled"),
            )
            .await?;
        bool::try_from(v).map_err(|_| BackendError::Failed("IsEnabled: unexpected type".into()))
    }

    // ---- The bus daemon (not an app) ----------------------------------------------------------

    pub async fn name_has_owner(&self, bus: &str) -> Result<bool, BackendError> {
        // Asked with a short budget of its own: it decides how an earlier failure reads.
        let c = Caller {
            deadline: Some(Instant::now() + Duration::from_millis(500)),
            progress: None,
            ..self.clone()
        };
        Box::pin(c.call(DBUS, "/org/freedesktop/DBus", DBUS, "NameHasOwner", &(bus,))).await
    }

    pub async fn unix_pid(&self, bus: &str) -> Result<u32, BackendError> {
        self.call(
            DBUS,
            "/org/freedesktop/DBus",
            DBUS,
            "GetConnectionUnixProcessID",
            &(bus,),
        )
        .await
    }
}
