//! Which servers the tests start, at which versions, and where `cargo xtask test` puts them.

use std::path::{Path, PathBuf};

/// One server's package on PyPI.
#[derive(Debug, Clone, Copy)]
pub struct Package {
    /// The folder under `target/servers` and the name the tests use.
    pub name: &'static str,
    /// The package and its pinned version, as the messages name it.
    pub requirement: &'static str,
    /// What pip installs (`real-server-tests/locks/<name>.txt`): every package pinned, every wheel
    /// hashed, so a new release, an index or a mirror cannot change the tests' server, and no
    /// source distribution's build script runs. Chroma's holds its wheel alone: its server is
    /// the Rust binary inside it, and the Python client's 400 MB of dependencies are not
    /// needed to run it.
    pub lock: &'static str,
}

/// The servers, each with what it is: see docs/IMPORT.md ("Real servers").
pub const PACKAGES: &[Package] = &[
    // Kinto: a JSON store on Pyramid and Cornice; serves Swagger 2.0 at /v1/__api__.
    Package {
        name: "kinto",
        requirement: "kinto==26.5.0",
        lock: include_str!("../locks/kinto.txt"),
    },
    // Jupyter Server: Tornado; ships and serves its Swagger 2.0 description (/api/spec.yaml).
    Package {
        name: "jupyter-server",
        requirement: "jupyter-server==2.21.1",
        lock: include_str!("../locks/jupyter-server.txt"),
    },
    // Chroma: a server written in Rust (axum, utoipa) inside a Python wheel; serves
    // OpenAPI 3.1 at /openapi.json.
    Package {
        name: "chromadb",
        requirement: "chromadb==1.5.9",
        lock: include_str!("../locks/chromadb.txt"),
    },
    // LangGraph's agent server (Starlette), in memory: streams a run's events as Server-Sent
    // Events (an `error` event when the graph fails, ids to resume a run's stream from);
    // serves OpenAPI 3.1 at /openapi.json.
    Package {
        name: "langgraph",
        requirement: "langgraph-cli[inmem]==0.4.40",
        lock: include_str!("../locks/langgraph.txt"),
    },
    // Prefect's API server (FastAPI, uvicorn, SQLite): serves OpenAPI 3.1 at /api/openapi.json,
    // its one server the relative `/api`; optional nullable fields cleared by a PATCH of `null`,
    // pydantic's constant union tags, 422s in a shape of its own.
    Package {
        name: "prefect",
        requirement: "prefect==3.9.1",
        lock: include_str!("../locks/prefect.txt"),
    },
    // Arize Phoenix (FastAPI, SQLite): an OpenTelemetry trace store, taking OTLP over HTTP at
    // /v1/traces and listing the spans it keeps at /v1/projects/{project}/spans; serves
    // OpenAPI 3.1 at /openapi.json. The receiver of the `otel` feature's spans.
    Package {
        name: "phoenix",
        requirement: "arize-phoenix==20.26.1",
        lock: include_str!("../locks/phoenix.txt"),
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
