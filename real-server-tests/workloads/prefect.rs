//! Prefect's workload, on the client imported from the server's own description with no
//! overlay and no hand-written type: flows created and paged through `POST /flows/filter` by
//! one `paginate:` entry (its offset in the body), a
//! deployment whose description a PATCH clears with `null` (read back), a flow run from it
//! whose refused state change comes back as the ABORT variant, logs written and read, a
//! variable created and changed, and a 422 whose explanation reaches the caller. Every typed
//! answer is compared with the same answer read as raw JSON: no key the server wrote is lost.
//! Run by `tests/prefect.rs`; `PREFECT_URL` is the server's root (the client adds `/api`, the
//! description's relative server).

use crate::api::prefect::{
    BodyReadFlowsFlowsFilterPost, BodyReadLogsLogsFilterPost,
    BodySetFlowRunStateFlowRunsIdSetStatePost, CreateFlowError, DeploymentCreate,
    DeploymentFlowRunCreate, DeploymentUpdate, Details, FlowCreate, LogCreate, LogFilter,
    LogFilterFlowRunId, Prefect, SetStateStatus, StateCreate, StateType, Value as VariableValue,
    VariableCreate, VariableUpdate,
};
use remcall::Nullable;
use remcall::serde_json::{self, Value, json};

const FLOWS: usize = 5;

#[tokio::main]
pub async fn main() -> Result<(), remcall::Error> {
    let url = std::env::var("PREFECT_URL").expect("PREFECT_URL");
    let prefect = Prefect::builder().base_url(&url).build()?;
    let raw = Raw {
        http: remcall::reqwest::Client::new(),
        api: format!("{url}/api"),
    };

    // Flows, then paged through the filter endpoint two at a time.
    let mut flow_ids = Vec::new();
    for n in 1..=FLOWS {
        let flow = prefect
            .create_flow(&FlowCreate::new(format!("remcall-flow-{n}")))
            .await?;
        let read = prefect.read_flow(&flow.id).await?;
        raw.same(&read, &raw.get(&format!("/flows/{}", flow.id)).await);
        flow_ids.push(flow.id);
    }
    // `paginate:` on the imported method: the pager moves the body's `offset` on.
    let two_a_page = BodyReadFlowsFlowsFilterPost {
        limit: Some(2),
        ..Default::default()
    };
    let mut pages = prefect.read_flows_stream(&two_a_page);
    let mut paged = Vec::new();
    while let Some(flow) = pages.next().await {
        paged.push(flow?);
    }
    let everything = BodyReadFlowsFlowsFilterPost {
        limit: Some(200),
        ..Default::default()
    };
    raw.same(&paged, &raw.post("/flows/filter", &everything).await);
    assert!(
        (flow_ids.iter()).all(|id| paged.iter().any(|flow| flow.id == *id)),
        "paging missed a flow"
    );
    println!("create_flow, read_flows: {FLOWS} flows, paged two at a time");

    // A deployment whose description a PATCH clears: `null` sent, `null` stored.
    let deployment = prefect
        .create_deployment(&DeploymentCreate {
            description: "nightly import".into(),
            ..DeploymentCreate::new(flow_ids[0].clone(), "nightly")
        })
        .await?;
    assert_eq!(deployment.description.as_deref(), Some("nightly import"));
    let clear = DeploymentUpdate {
        description: Nullable::Null,
        ..Default::default()
    };
    assert_eq!(
        serde_json::to_value(&clear).expect("encodes"),
        json!({ "description": null }),
        "the PATCH body sends the null"
    );
    prefect.update_deployment(&deployment.id, &clear).await?;
    let read = prefect.read_deployment(&deployment.id).await?;
    let stored = raw.get(&format!("/deployments/{}", deployment.id)).await;
    assert_eq!(stored["description"], Value::Null, "the server cleared it");
    assert_eq!(read.description, None);
    raw.same(&read, &stored);
    println!("update_deployment: description cleared with null, read back null");

    // A flow run; RUNNING, then a PENDING the server refuses: the ABORT variant, typed.
    let run = prefect
        .run_deployment(&deployment.id, &DeploymentFlowRunCreate::default())
        .await?;
    let running = BodySetFlowRunStateFlowRunsIdSetStatePost {
        force: Some(true),
        ..BodySetFlowRunStateFlowRunsIdSetStatePost::new(StateCreate::new(StateType::Running))
    };
    let accepted = prefect.set_flow_run_state(&run.id, &running).await?;
    assert_eq!(accepted.status, SetStateStatus::Accept);
    let backwards =
        BodySetFlowRunStateFlowRunsIdSetStatePost::new(StateCreate::new(StateType::Pending));
    let refused = prefect.set_flow_run_state(&run.id, &backwards).await?;
    assert_eq!(refused.status, SetStateStatus::Abort);
    let Details::StateAbort(abort) = &refused.details else {
        panic!("ABORT read as another variant: {:?}", refused.details);
    };
    let reason = abort.reason.clone().unwrap_or_default();
    assert!(reason.contains("cannot transition"), "{reason}");
    let read = prefect.read_flow_run(&run.id).await?;
    assert_eq!(read.state_type, Some(StateType::Running));
    raw.same(&read, &raw.get(&format!("/flow_runs/{}", run.id)).await);
    println!("set_flow_run_state: RUNNING accepted, PENDING aborted ({reason})");

    // Logs of the run, written and read back.
    let logs: Vec<LogCreate> = (1..=3)
        .map(|n| LogCreate {
            flow_run_id: run.id.as_str().into(),
            ..LogCreate::new(
                20,
                format!("step {n} done"),
                "remcall.workload",
                "2026-01-02T03:04:05Z",
            )
        })
        .collect();
    prefect.create_logs(&logs).await?;
    let filter = BodyReadLogsLogsFilterPost {
        logs: Nullable::Value(LogFilter {
            flow_run_id: Nullable::Value(LogFilterFlowRunId {
                any: Nullable::Value(vec![run.id.clone()]),
            }),
            ..Default::default()
        }),
        ..Default::default()
    };
    let read = prefect.read_logs(&filter).await?;
    assert_eq!(read.len(), 3, "{read:?}");
    raw.same(&read, &raw.post("/logs/filter", &filter).await);
    println!("create_logs, read_logs: 3 logs of the run");

    // A variable, created and changed.
    let created = prefect
        .create_variable(&VariableCreate {
            value: Some(VariableValue::String("first".to_owned())),
            ..VariableCreate::new("remcall_variable")
        })
        .await?;
    assert_eq!(created.value, Some(VariableValue::String("first".into())));
    let change = VariableUpdate {
        value: Nullable::Value(VariableValue::I64(42)),
        ..Default::default()
    };
    prefect
        .update_variable_by_name("remcall_variable", &change)
        .await?;
    let read = prefect.read_variable_by_name("remcall_variable").await?;
    assert_eq!(read.value, Some(VariableValue::I64(42)));
    raw.same(&read, &raw.get("/variables/name/remcall_variable").await);
    println!("create_variable, update_variable_by_name: value 42 read back");

    // A name the server refuses: its explanation, not the declared `{detail}`, reaches the
    // caller, in the error's text and body. Strict about shape, the 422 in the server's own
    // shape (no key of `HttpValidationError`'s) is no declared error; the test's `remcall
    // learn` over the recording declares the shape that came.
    let error = prefect
        .create_flow(&FlowCreate::new("remcall/flow"))
        .await
        .expect_err("a flow name with a slash is refused");
    assert_eq!(error.status().map(|s| s.as_u16()), Some(422));
    assert!(
        error.detail::<CreateFlowError>().is_none(),
        "a 422 of another shape is no `HttpValidationError`"
    );
    let text = error.to_string();
    assert!(text.contains("String should match pattern"), "{text}");
    let body = String::from_utf8_lossy(error.body().unwrap_or_default()).into_owned();
    assert!(body.contains("exception_detail"), "{body}");
    println!("create_flow: 422 explained: {text}");
    let stats = prefect.stats();
    let undeclared: u64 = stats.methods.iter().map(|(_, m)| m.undeclared).sum();
    println!("undeclared keys noticed in all answers: {undeclared}");
    Ok(())
}

/// The same answers read as plain JSON, to compare with what the typed ones write back.
struct Raw {
    http: remcall::reqwest::Client,
    api: String,
}

impl Raw {
    async fn get(&self, path: &str) -> Value {
        let answer = self.http.get(format!("{}{path}", self.api)).send().await;
        let bytes = answer.expect("GET").bytes().await.expect("a body");
        serde_json::from_slice(&bytes).expect("JSON")
    }

    async fn post(&self, path: &str, body: &impl remcall::serde::Serialize) -> Value {
        let request = (self.http.post(format!("{}{path}", self.api)))
            .header("content-type", "application/json")
            .body(serde_json::to_vec(body).expect("encodes"));
        let bytes = request.send().await.expect("POST").bytes().await;
        serde_json::from_slice(&bytes.expect("a body")).expect("JSON")
    }

    /// Every key the server wrote comes back from the typed value's type with the same value
    /// (`null` and absent alike, numbers as numbers). The raw answer itself is read with the
    /// type and written back: a live value (a running flow run's estimated run time) moves
    /// between two reads.
    #[track_caller]
    fn same<T>(&self, _typed: &T, raw: &Value)
    where
        T: remcall::serde::Serialize + remcall::serde::de::DeserializeOwned,
    {
        let read: T = serde_json::from_value(raw.clone()).expect("the typed value reads it");
        let typed = serde_json::to_value(&read).expect("encodes");
        if let Err(place) = kept("$", raw, &typed) {
            panic!("{place}: the server wrote {raw}\nthe typed value kept {typed}");
        }
    }
}

fn kept(place: &str, raw: &Value, typed: &Value) -> Result<(), String> {
    match (raw, typed) {
        (Value::Null, Value::Null) => Ok(()),
        (Value::Number(a), Value::Number(b)) if a.as_f64() == b.as_f64() => Ok(()),
        (Value::Object(raw), Value::Object(typed)) => {
            for (key, value) in raw {
                let place = format!("{place}.{key}");
                match typed.get(key) {
                    Some(kept_value) => kept(&place, value, kept_value)?,
                    None if value.is_null() => {}
                    None => return Err(format!("{place} dropped")),
                }
            }
            Ok(())
        }
        (Value::Array(raw), Value::Array(typed)) if raw.len() == typed.len() => raw
            .iter()
            .zip(typed)
            .enumerate()
            .try_for_each(|(i, (a, b))| kept(&format!("{place}[{i}]"), a, b)),
        (a, b) if a == b => Ok(()),
        _ => Err(format!("{place} changed")),
    }
}
