//! Which servers the tests start, at which versions, and where `cargo xtask test` puts them.

use std::path::{Path, PathBuf};

/// One server's package on PyPI.
#[derive(Debug, Clone, Copy)]
pub struct Package {
    /// The folder under `target/servers` and the name the tests use.
    pub name: &'static str,
    /// What pip installs: a pinned version, so a new release cannot change the tests' server.
    pub requirement: &'static str,
    /// Whether pip installs its dependencies: Chroma's server is the Rust binary inside its
    /// wheel, and the Python client's 400 MB of dependencies are not needed to run it.
    pub with_dependencies: bool,
}

/// The servers, each with what it is: see docs/IMPORT.md ("Real servers").
pub const PACKAGES: &[Package] = &[
    // Kinto: a JSON store on Pyramid and Cornice; serves Swagger 2.0 at /v1/__api__.
    Package {
        name: "kinto",
        requirement: "kinto==26.5.0",
        with_dependencies: true,
    },
    // Jupyter Server: Tornado; ships and serves its Swagger 2.0 description (/api/spec.yaml).
    Package {
        name: "jupyter-server",
        requirement: "jupyter-server==2.21.1",
        with_dependencies: true,
    },
    // Chroma: a server written in Rust (axum, utoipa) inside a Python wheel; serves
    // OpenAPI 3.1 at /openapi.json.
    Package {
        name: "chromadb",
        requirement: "chromadb==1.5.9",
        with_dependencies: false,
    },
];

/// `target/servers` of the workspace at `root`.
pub fn servers_dir(root: &Path) -> PathBuf {
    root.join("target").join("servers")
}

/// Where the package `name` was installed (the folder pip put it in, for `PYTHONPATH`), or what
/// to run when it was not.
pub fn installed(name: &str) -> Result<PathBuf, String> {
    let package = PACKAGES
        .iter()
        .find(|p| p.name == name)
        .ok_or_else(|| format!("no server named {name}"))?;
    let dir = servers_dir(&crate::workspace()).join(package.name);
    if dir.join(".installed").is_file() {
        Ok(dir)
    } else {
        Err(format!(
            "{} is not installed in {}: `cargo xtask servers` (or `cargo xtask test`) installs it",
            package.requirement,
            dir.display()
        ))
    }
}
