//! Where a concrete backend is chosen: the names `--backend` takes, the platform's own, and
//! the diagnosis of each. A new platform is a folder under `backend/` and its lines here.

use std::sync::Arc;
use std::time::Duration;

use super::fixture::FixtureBackend;
use super::{Backend, BackendError};

/// How long to wait for the accessibility bus before giving up on it.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// Why no backend was had.
#[derive(Debug)]
pub enum PickError {
    /// The backend is not on this system (or this build); the message says which.
    Absent(&'static str),
    /// `--backend` names no backend, or its fixture file is bad.
    Usage(String),
    /// The backend is there and did not connect.
    Backend(BackendError),
}

/// The backend `spec` (`--backend`) names: `atspi`, `uia`, `ax`, `fixture` (or `demo`) or
/// `fixture:PATH`.
pub async fn named(spec: &str) -> Result<Arc<dyn Backend>, PickError> {
    match spec {
        "fixture" | "demo" => Ok(demo()),
        s if let Some(path) = s.strip_prefix("fixture:") => FixtureBackend::from_path(path)
            .map(|b| Arc::new(b) as Arc<dyn Backend>)
            .map_err(|e| PickError::Usage(e.to_string())),
        "atspi" => connect_atspi().await,
        "uia" => connect_uia().await,
        "ax" => connect_ax().await,
        other => Err(PickError::Usage(format!(
            "unknown backend `{other}` (use atspi, uia, ax, fixture or fixture:PATH)"
        ))),
    }
}

/// The platform's own accessibility backend (AT-SPI on Linux), with no fallback.
pub async fn platform() -> Result<Arc<dyn Backend>, PickError> {
    connect_atspi().await
}

/// The demo app, for when there is no accessibility bus.
pub fn demo() -> Arc<dyn Backend> {
    Arc::new(FixtureBackend::demo())
}

/// Whether `spec` names the demo app or a fixture file.
fn is_fixture(spec: &str) -> bool {
    spec == "fixture" || spec == "demo" || spec.starts_with("fixture:")
}

/// A platform backend's connection, shared.
#[cfg(any(target_os = "linux", windows, target_os = "macos"))]
fn connected<B: Backend + 'static>(
    r: Result<B, BackendError>,
) -> Result<Arc<dyn Backend>, PickError> {
    r.map(|b| Arc::new(b) as Arc<dyn Backend>)
        .map_err(PickError::Backend)
}

#[cfg(target_os = "linux")]
async fn connect_atspi() -> Result<Arc<dyn Backend>, PickError> {
    connected(super::atspi::AtspiBackend::connect(CONNECT_TIMEOUT).await)
}

#[cfg(not(target_os = "linux"))]
async fn connect_atspi() -> Result<Arc<dyn Backend>, PickError> {
    Err(PickError::Absent("AT-SPI is only available on Linux"))
}

/// Windows UI Automation (implemented, not yet verified on Windows).
#[cfg(windows)]
async fn connect_uia() -> Result<Arc<dyn Backend>, PickError> {
    connected(super::uia::UiaBackend::connect(CONNECT_TIMEOUT).await)
}

#[cfg(not(windows))]
async fn connect_uia() -> Result<Arc<dyn Backend>, PickError> {
    Err(PickError::Absent(
        "UI Automation is only available on Windows",
    ))
}

/// macOS Accessibility (implemented, not yet verified on macOS).
#[cfg(target_os = "macos")]
async fn connect_ax() -> Result<Arc<dyn Backend>, PickError> {
    connected(super::ax::AxBackend::connect(CONNECT_TIMEOUT).await)
}

#[cfg(not(target_os = "macos"))]
async fn connect_ax() -> Result<Arc<dyn Backend>, PickError> {
    Err(PickError::Absent(
        "the macOS Accessibility API is only available on macOS",
    ))
}

/// The diagnosis for `--backend` (by default the platform's accessibility stack).
pub async fn doctor(spec: Option<&str>) -> crate::doctor::Report {
    use crate::doctor::{Check, Report, Status};
    match spec {
        Some(s) if is_fixture(s) => Report {
            backend: "fixture".into(),
            checks: vec![Check::new(
                "backend",
                Status::Ok,
                "the fixture backend needs no accessibility bus",
            )],
            apps: vec![],
        },
        #[cfg(target_os = "linux")]
        None | Some("atspi") => super::atspi::doctor::diagnose().await,
        // COM is started on a thread of its own, as the backend does.
        #[cfg(windows)]
        None | Some("uia") => tokio::task::spawn_blocking(super::uia::diagnose)
            .await
            .unwrap_or_else(|e| Report {
                backend: "uia".into(),
                checks: vec![Check::new(
                    "backend",
                    Status::Fail,
                    format!("the diagnosis stopped: {e}"),
                )],
                apps: vec![],
            }),
        Some(other) => Report {
            backend: other.to_string(),
            checks: vec![Check::new(
                "backend",
                Status::Fail,
                format!("no diagnosis for the `{other}` backend on this system"),
            )],
            apps: vec![],
        },
        #[cfg(not(any(target_os = "linux", windows)))]
        None => Report {
            backend: "none".into(),
            checks: vec![Check::new(
                "backend",
                Status::Fail,
                "no diagnosis on this system yet",
            )],
            apps: vec![],
        },
    }
}
