//! The resilience policies, one file (or folder) each: what a profile turns on and how it
//! decides. The call path (`crate::call`) asks them. Two lean on another: the bulkhead holds
//! either a semaphore or the adaptive limit (`bulkhead` → `adaptive`), and hedges are paid
//! from the retry budget (`hedge` → `budget`); no other policy knows of one.

pub(crate) mod adaptive;
pub(crate) mod breaker;
pub(crate) mod budget;
pub(crate) mod bulkhead;
pub mod deadline;
pub(crate) mod hedge;
pub(crate) mod quota;
pub(crate) mod rate_limit;
pub(crate) mod retry;
