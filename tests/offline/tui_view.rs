//! TUI over the fixture backend: opening on the window named on the command line (and the apps
//! pane with the reason when nothing matched), the on-screen highlight's state machine (flash,
//! hold, why it cannot be shown), the showing view, and the value display rules on a page-like
//! tree (no names repeated as values, embedded objects marked or left out).
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::Duration;

use crossterm::event::KeyCode;
use treeglass::backend::Backend;
use treeglass::backend::fixture::FixtureBackend;
use treeglass::model::{Bounds, NodeId};
use treeglass::tui::app::{Config, OpenAt, Pane};
use treeglass::tui::harness::Harness;

const WAIT: Duration = Duration::from_secs(10);

/// Two apps; the second has two windows. The page window holds what a browser shows: a closed
/// popup menu, headings and labels whose text repeats their name, containers of U+FFFC, an
/// element off the screen.
const PAGE: &str = r#"{"apps": [
  {"name": "first-app", "pid": 11, "windows": [
    {"role": "frame", "name": "First window", "states": ["active"], "children": [
      {"role": "button", "name": "Elsewhere", "actions": ["click"]}]}]},
  {"name": "page-app", "pid": 22, "windows": [
    {"role": "frame", "name": "Other page", "children": [
      {"role": "button", "name": "Nothing here", "actions": ["click"]}]},
    {"role": "frame", "name": "Order form", "children": [
      {"role": "menu", "hidden": true, "children": [
        {"role": "menu-item", "name": "Never shown", "hidden": true}]},
      {"role": "panel", "value": {"kind": "text", "text": "\ufffc\ufffc\ufffc"}, "children": [
        {"role": "heading", "name": "Checkout", "value": {"kind": "text", "text": "Checkout"}},
        {"role": "label", "name": "Quantity", "value": {"kind": "text", "text": "Quantity"}},
        {"role": "paragraph", "value": {"kind": "text", "text": "See \ufffc for terms."},
         "children": [{"role": "link", "name": "the terms", "actions": ["click"]}]},
        {"role": "text", "name": "Quantity field", "value": {"kind": "text", "text": "3"},
         "bounds": {"x": 40, "y": 80, "width": 120, "height": 24}},
        {"role": "button", "name": "Far away", "actions": ["click"],
         "bounds": {"x": 5000, "y": 80, "width": 120, "height": 24}}]}]}]}
]}"#;

fn page() -> FixtureBackend {
    FixtureBackend::from_json(PAGE).unwrap()
}

async fn root_named(b: &FixtureBackend, title: &str) -> (String, NodeId) {
    let apps = b.apps().await.unwrap();
    apps.iter()
        .flat_map(|a| a.windows.iter().map(move |w| (a, w)))
        .find(|(_, w)| w.name == title)
        .map(|(a, w)| (a.bus_name.clone(), w.id.clone()))
        .unwrap()
}

async fn start(config: Config) -> (FixtureBackend, Harness) {
    let b = page();
    let h = Harness::with_config(Arc::new(b.clone()), 160, 48, config);
    (b, Harness::start_with(h).await.unwrap())
}

fn title(h: &Harness) -> String {
    h.app
        .view
        .shown
        .as_ref()
        .map(|s| s.title.as_str().to_string())
        .unwrap_or_default()
}

#[tokio::test]
async fn opens_on_the_window_asked_for() {
    let b = page();
    let (bus_name, root) = root_named(&b, "Order form").await;
    let config = Config {
        open: Some(Ok(OpenAt { bus_name, root })),
        ..Config::default()
    };
    let h = Harness::with_config(Arc::new(b), 160, 48, config);
    let mut h = Harness::start_with(h).await.unwrap();
    // Not the active window of the first app: the one asked for.
    assert_eq!(title(&h), "Order form");
    assert!(h.render().contains("Tree Order form"));
}

#[tokio::test]
async fn an_app_with_several_windows_opens_its_first() {
    let b = page();
    let apps = b.apps().await.unwrap();
    let app = apps.iter().find(|a| a.name == "page-app").unwrap();
    let config = Config {
        open: Some(Ok(OpenAt {
            bus_name: app.bus_name.clone(),
            root: app.id.clone(),
        })),
        ..Config::default()
    };
    let h = Harness::with_config(Arc::new(b.clone()), 160, 48, config);
    let h = Harness::start_with(h).await.unwrap();
    assert_eq!(title(&h), "Other page");
}

#[tokio::test]
async fn no_match_opens_the_apps_pane_with_the_reason() {
    let why =
        "no application matches --app \"^nope$\"; applications on the bus:\n  first-app (pid 11)";
    let (_b, mut h) = start(Config {
        open: Some(Err(why.into())),
        ..Config::default()
    })
    .await;
    assert!(h.app.view.shown.is_none(), "nothing is opened instead");
    assert_eq!(h.app.focus, Pane::Apps);
    let screen = h.render();
    assert!(
        screen.contains("cannot open the window asked for"),
        "{screen}"
    );
    assert!(screen.contains("first-app (pid 11)"), "{screen}");
    // A later app-list poll does not open some other window behind the user's back.
    h.send(treeglass::tui::Msg::Timer(
        treeglass::tui::app::TimerId::AppsPoll,
    ));
    h.settle().await.unwrap();
    assert!(h.app.view.shown.is_none());
    // Choosing a window opens it and the reason goes.
    h.key(KeyCode::Down);
    h.key(KeyCode::Enter);
    h.settle().await.unwrap();
    assert_eq!(title(&h), "First window");
    assert!(h.app.open_error.is_none());
    assert!(!h.render().contains("cannot open the window"));
}

async fn on_order_form(highlight: Option<Result<(u32, u32), String>>) -> Harness {
    let b = page();
    let (bus_name, root) = root_named(&b, "Order form").await;
    let config = Config {
        open: Some(Ok(OpenAt { bus_name, root })),
        highlight,
        ..Config::default()
    };
    Harness::start_with(Harness::with_config(Arc::new(b), 160, 48, config))
        .await
        .unwrap()
}

const FIELD: Bounds = Bounds {
    x: 40,
    y: 80,
    width: 120,
    height: 24,
};

#[tokio::test(start_paused = true)]
async fn the_highlight_flashes_on_selection_and_holds_with_o() {
    let mut h = on_order_form(Some(Ok((1600, 1200)))).await;
    h.select("text \"Quantity field\"");
    h.until("the frame on the field", WAIT, |a| {
        a.highlight.shown == Some(FIELD)
    })
    .await
    .unwrap();
    assert_eq!(h.highlights.last(), Some(&Some(FIELD)));
    assert!(h.render().contains("framed on screen"));
    // Shown briefly: the flash ends by itself (paused time runs the timer).
    h.until("the flash to end", WAIT, |a| a.highlight.shown.is_none())
        .await
        .unwrap();
    assert_eq!(h.highlights.last(), Some(&None));
    // Held: it comes back and stays past the flash.
    h.key(KeyCode::Char('o'));
    h.until("the held frame", WAIT, |a| a.highlight.shown == Some(FIELD))
        .await
        .unwrap();
    tokio::time::sleep(treeglass::tui::highlight::FLASH * 3).await;
    h.settle().await.unwrap();
    assert_eq!(h.app.highlight.shown, Some(FIELD));
    assert!(h.render().contains("framed on screen (held"));
    // An element off the screen: no frame, and the details pane says why.
    h.select("button \"Far away\"");
    h.until("the frame gone", WAIT, |a| a.highlight.shown.is_none())
        .await
        .unwrap();
    h.settle().await.unwrap();
    let screen = h.render();
    assert!(
        screen.contains("none: the element's bounds are"),
        "{screen}"
    );
    // Letting go on the field: it flashes once more, then goes.
    h.select("text \"Quantity field\"");
    h.key(KeyCode::Char('o'));
    h.until("the flash to end", WAIT, |a| {
        !a.highlight.held && a.highlight.shown.is_none()
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn where_the_highlight_cannot_work_the_details_pane_says_why() {
    let mut h = on_order_form(Some(Err("no X display ($DISPLAY is not set)".into()))).await;
    h.select("text \"Quantity field\"");
    h.settle().await.unwrap();
    let screen = h.render();
    assert!(
        screen.contains("highlight   none: no X display ($DISPLAY is"),
        "{screen}"
    );
    h.key(KeyCode::Char('o'));
    assert!(h.app.notice.as_deref().unwrap().contains("no X display"));
    assert!(h.highlights.is_empty(), "no frame is ever asked for");
}

#[tokio::test]
async fn the_showing_view_hides_what_is_never_shown() {
    let mut h = on_order_form(None).await;
    assert!(h.render().contains("Never shown"));
    h.key(KeyCode::Char('s'));
    let screen = h.render();
    assert!(!screen.contains("Never shown"), "{screen}");
    assert!(!screen.contains("▾ menu"), "{screen}");
    assert!(screen.contains("· showing "), "{screen}");
    assert!(screen.contains("button \"Far away\""), "{screen}");
    // The raw tree is one key away and shows every node.
    h.key(KeyCode::Char('T'));
    let screen = h.render();
    assert!(screen.contains("Never shown"), "{screen}");
    assert!(screen.contains("· raw "), "{screen}");
    // The showing view survives a re-read.
    h.key(KeyCode::Char('s'));
    h.key(KeyCode::F(5));
    h.settle().await.unwrap();
    assert!(!h.render().contains("Never shown"));
}

#[tokio::test]
async fn page_text_is_shown_only_where_it_says_something() {
    let mut h = on_order_form(None).await;
    let screen = h.render();
    // Names are not repeated as values; containers' embedded objects are left out.
    assert!(
        screen.contains("heading \"Checkout\"\n") || screen.contains("heading \"Checkout\" "),
        "{screen}"
    );
    assert!(!screen.contains("= \"Checkout\""), "{screen}");
    assert!(!screen.contains("= \"Quantity\""), "{screen}");
    assert!(!screen.contains('\u{fffc}'), "{screen}");
    // Text that adds to the name shows, with the embedded object marked.
    assert!(
        screen.contains("paragraph = \"See ⟨obj⟩ for terms.\""),
        "{screen}"
    );
    // A field's value always shows.
    assert!(
        screen.contains("text \"Quantity field\" = \"3\""),
        "{screen}"
    );
    // The details pane still has a static element's text.
    h.select("label \"Quantity\"");
    h.settle().await.unwrap();
    assert!(h.render().contains("text        \"Quantity\""));
}
