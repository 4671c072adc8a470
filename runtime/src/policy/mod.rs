//! The resilience policies, one file (or folder) each: what a profile turns on and how it
//! decides. The call path (`crate::call`) asks them; none of them calls another.

pub(crate) mod adaptive;
pub(crate) mod breaker;
pub(crate) mod budget;
pub(crate) mod bulkhead;
pub mod deadline;
pub(crate) mod hedge;
pub(crate) mod rate_limit;
pub(crate) mod retry;
