//! A real `redis-server` for the tests of limits shared through Redis, on a free loopback port,
//! and a TCP proxy in front of it that can be made slow. A test that needs Redis fails, with the
//! package to install, when `redis-server` is not there: it never skips.

use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// How long a Redis server (or cluster) may take to be ready: the test's own bound, far past a
/// busy machine's start-up, never a guess at the machine's speed.
const READY: Duration = Duration::from_secs(120);

/// A `redis-server` child process; stopped when dropped.
#[derive(Debug)]
pub struct RedisServer {
    child: Option<Child>,
    port: u16,
}

impl RedisServer {
    /// Starts one on a free loopback port and waits until it answers PING.
    pub async fn start() -> RedisServer {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        RedisServer::start_on(port).await
    }

    /// Starts one on `port` (again, after [`RedisServer::stop`]).
    pub async fn start_on(port: u16) -> RedisServer {
        RedisServer::spawn(port, &[]).await
    }

    async fn spawn(port: u16, extra: &[&str]) -> RedisServer {
        let child = Command::new("redis-server")
            .args([
                "--port",
                &port.to_string(),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ])
            .args(extra)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server is not installed (Debian: apt-get install -y redis-server)");
        let server = RedisServer {
            child: Some(child),
            port,
        };
        let started = std::time::Instant::now();
        while started.elapsed() < READY {
            if ping(server.addr()).await {
                return server;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("redis-server on port {port} did not answer PING within {READY:?}");
    }

    /// Its address.
    pub fn addr(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.port))
    }

    /// `redis://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("redis://{}", self.addr())
    }

    /// Kills it (its port can be started again with [`RedisServer::start_on`]).
    pub fn stop(&mut self) -> u16 {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        self.port
    }

    /// Sends one command (inline syntax) and returns the first line of the answer.
    pub async fn command(&self, line: &str) -> String {
        let mut stream = TcpStream::connect(self.addr()).await.expect("connect");
        stream
            .write_all(format!("{line}\r\n").as_bytes())
            .await
            .expect("write");
        let mut answer = vec![0; 512];
        let n = stream.read(&mut answer).await.expect("read");
        String::from_utf8_lossy(&answer[..n]).trim().to_owned()
    }

    /// Sends one command (inline syntax) and returns all of its answer, however long: read
    /// until the answer is whole (RESP says how long it is), for as long as a busy machine needs.
    pub async fn command_whole(&self, line: &str) -> String {
        let mut stream = TcpStream::connect(self.addr()).await.expect("connect");
        stream
            .write_all(format!("{line}\r\n").as_bytes())
            .await
            .expect("write");
        let mut answer = Vec::new();
        let mut chunk = vec![0; 64 * 1024];
        let read_whole = async {
            while resp_end(&answer, 0).is_none() {
                let n = stream.read(&mut chunk).await.expect("read");
                assert!(n > 0, "Redis closed the connection mid-answer to `{line}`");
                answer.extend_from_slice(&chunk[..n]);
            }
        };
        tokio::time::timeout(READY, read_whole)
            .await
            .unwrap_or_else(|_| panic!("Redis did not answer `{line}` whole within {READY:?}"));
        String::from_utf8_lossy(&answer).into_owned()
    }
}

/// Where the RESP value starting at `at` of `buf` ends, once all of it has arrived.
fn resp_end(buf: &[u8], at: usize) -> Option<usize> {
    let line_end = at + buf.get(at..)?.windows(2).position(|w| w == b"\r\n")?;
    let after_line = line_end + 2;
    let number = || -> Option<i64> {
        std::str::from_utf8(&buf[at + 1..line_end])
            .ok()?
            .parse()
            .ok()
    };
    match buf[at] {
        b'$' | b'=' | b'!' => match number()? {
            n if n < 0 => Some(after_line),
            n => {
                let end = after_line + usize::try_from(n).ok()? + 2;
                (buf.len() >= end).then_some(end)
            }
        },
        b'*' | b'~' | b'>' | b'%' | b'|' => {
            let n = number()?;
            let items = if matches!(buf[at], b'%' | b'|') {
                2 * n
            } else {
                n
            };
            (0..items.max(0)).try_fold(after_line, |next, _| resp_end(buf, next))
        }
        _ => Some(after_line),
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A Redis Cluster of three masters on loopback ports, each node a [`RedisServer`].
#[derive(Debug)]
pub struct RedisCluster {
    /// The nodes; any of them is a way in.
    pub nodes: Vec<RedisServer>,
    _config: tempfile::TempDir,
}

impl RedisCluster {
    /// Starts three nodes, joins them with `redis-cli --cluster create` (the slots split three
    /// ways) and waits until the cluster says `cluster_state:ok`.
    pub async fn start() -> RedisCluster {
        let config = tempfile::tempdir().expect("a directory for the nodes' files");
        let mut nodes = Vec::new();
        for _ in 0..3 {
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .expect("a free port")
                .port();
            let file = config.path().join(format!("nodes-{port}.conf"));
            nodes.push(
                RedisServer::spawn(
                    port,
                    &[
                        "--cluster-enabled",
                        "yes",
                        "--cluster-config-file",
                        file.to_str().expect("a UTF-8 path"),
                        "--cluster-node-timeout",
                        "5000",
                    ],
                )
                .await,
            );
        }
        let addresses: Vec<String> = nodes.iter().map(|n| n.addr().to_string()).collect();
        let created = Command::new("redis-cli")
            .args(["--cluster", "create"])
            .args(&addresses)
            .args(["--cluster-replicas", "0", "--cluster-yes"])
            .output()
            .expect("redis-cli is not installed (Debian: apt-get install -y redis-tools)");
        assert!(
            created.status.success(),
            "redis-cli --cluster create: {}",
            String::from_utf8_lossy(&created.stdout)
        );
        let started = std::time::Instant::now();
        while started.elapsed() < READY {
            let mut ok = true;
            for node in &nodes {
                ok &= node.info_says("CLUSTER INFO", "cluster_state:ok").await;
            }
            if ok {
                return RedisCluster {
                    nodes,
                    _config: config,
                };
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("the Redis Cluster did not come to cluster_state:ok within {READY:?}");
    }

    /// `redis+cluster://` through the node `index`.
    pub fn url(&self, index: usize) -> String {
        format!("redis+cluster://{}", self.nodes[index].addr())
    }
}

impl RedisServer {
    /// Whether the answer to `command` contains `wanted` (a multi-line bulk answer is read whole).
    async fn info_says(&self, command: &str, wanted: &str) -> bool {
        let Ok(mut stream) = TcpStream::connect(self.addr()).await else {
            return false;
        };
        if stream
            .write_all(format!("{command}\r\n").as_bytes())
            .await
            .is_err()
        {
            return false;
        }
        let mut answer = vec![0; 4096];
        let mut read = 0;
        while read < answer.len() {
            match tokio::time::timeout(Duration::from_millis(200), stream.read(&mut answer[read..]))
                .await
            {
                Ok(Ok(n)) if n > 0 => {
                    read += n;
                    if String::from_utf8_lossy(&answer[..read]).contains(wanted) {
                        return true;
                    }
                }
                _ => break,
            }
        }
        false
    }
}

async fn ping(addr: SocketAddr) -> bool {
    let Ok(mut stream) = TcpStream::connect(addr).await else {
        return false;
    };
    if stream.write_all(b"PING\r\n").await.is_err() {
        return false;
    }
    let mut answer = [0; 7];
    matches!(stream.read(&mut answer).await, Ok(n) if answer[..n].starts_with(b"+PONG"))
}

/// A loopback TCP proxy that holds every chunk the server sends for `delay` first: a slow Redis.
#[derive(Debug, Clone)]
pub struct SlowProxy {
    addr: SocketAddr,
    delay_ms: Arc<AtomicU64>,
}

impl SlowProxy {
    /// Proxies a new loopback port to `upstream`, without delay to start with.
    pub async fn start(upstream: SocketAddr) -> SlowProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let delay_ms = Arc::new(AtomicU64::new(0));
        let delay = delay_ms.clone();
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let delay = delay.clone();
                tokio::spawn(async move {
                    let Ok(server) = TcpStream::connect(upstream).await else {
                        return;
                    };
                    let (mut client_read, mut client_write) = client.into_split();
                    let (mut server_read, mut server_write) = server.into_split();
                    let up = tokio::spawn(async move {
                        let _ = tokio::io::copy(&mut client_read, &mut server_write).await;
                    });
                    let mut buffer = vec![0; 16 * 1024];
                    loop {
                        let n = match server_read.read(&mut buffer).await {
                            Ok(0) | Err(_) => break,
                            Ok(n) => n,
                        };
                        let wait = delay.load(Ordering::Relaxed);
                        if wait > 0 {
                            tokio::time::sleep(Duration::from_millis(wait)).await;
                        }
                        if client_write.write_all(&buffer[..n]).await.is_err() {
                            break;
                        }
                    }
                    up.abort();
                });
            }
        });
        SlowProxy { addr, delay_ms }
    }

    /// `redis://` to the proxy.
    pub fn url(&self) -> String {
        format!("redis://{}", self.addr)
    }

    /// Every answer from now on waits this long.
    pub fn set_delay(&self, delay: Duration) {
        self.delay_ms
            .store(delay.as_millis() as u64, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::resp_end;

    #[test]
    fn an_answer_is_whole_only_when_every_part_has_arrived() {
        let whole = b"*2\r\n$3\r\nabc\r\n:7\r\n";
        assert_eq!(resp_end(whole, 0), Some(whole.len()));
        for cut in 0..whole.len() {
            assert_eq!(resp_end(&whole[..cut], 0), None, "cut at {cut}");
        }
        assert_eq!(resp_end(b"*0\r\n", 0), Some(4));
        assert_eq!(resp_end(b"$-1\r\n", 0), Some(5));
        assert_eq!(resp_end(b"+OK\r\n", 0), Some(5));
    }
}
