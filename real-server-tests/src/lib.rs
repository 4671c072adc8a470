//! Real API servers that nobody here wrote, for the test suite: each is a package from PyPI that
//! serves or ships its own OpenAPI description. `cargo xtask test` installs them into
//! `target/servers/<name>` ([`PACKAGES`]); a test starts one on a free loopback port
//! ([`Running`]), reads its description from it, imports and generates a client as a user's
//! spec would ([`Workload`]), and runs a workload program against it. A server that is not
//! installed fails the test with the command that installs it: it never skips.

mod install;
mod process;
mod workload;

pub use install::{PACKAGES, Package, installed, servers_dir};
pub use process::{Running, fetch};
pub use workload::{SCRATCH_PROFILE, SCRATCH_TARGET, Workload};

// The workloads are built in scratch crates beside a generated client (`Workload`); named here,
// never compiled, only so that `cargo fmt` keeps them formatted.
#[cfg(any())]
#[path = "../workloads/chromadb.rs"]
mod chromadb_workload;
#[cfg(any())]
#[path = "../workloads/jupyter-server.rs"]
mod jupyter_server_workload;
#[cfg(any())]
#[path = "../workloads/kinto.rs"]
mod kinto_workload;
#[cfg(any())]
#[path = "../workloads/langgraph.rs"]
mod langgraph_workload;
#[cfg(any())]
#[path = "../workloads/phoenix.rs"]
mod phoenix_workload;
#[cfg(any())]
#[path = "../workloads/prefect.rs"]
mod prefect_workload;

/// The workspace's root (this crate is one of its members).
pub fn workspace() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate sits in the workspace")
        .to_path_buf()
}
