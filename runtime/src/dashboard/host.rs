//! Which `Host` the standalone dashboard answers: a page elsewhere that points a domain of its
//! own at this address (DNS rebinding) must not read the figures, so a name is answered only
//! when it is known to be this server's.

use std::net::IpAddr;

/// True when `host` (the request's `Host` header, port included or not) names this server,
/// bound to `bound`: an IP address (a rebinding needs a name), `localhost` when the server is on
/// a loopback or every address, or one of the caller's `names` (case-insensitive).
pub(crate) fn allowed(host: Option<&str>, bound: IpAddr, names: &[String]) -> bool {
    let Some(host) = host.map(str::trim) else {
        return false;
    };
    let name = without_port(host);
    if name.parse::<IpAddr>().is_ok() {
        return true;
    }
    if name.eq_ignore_ascii_case("localhost") {
        return bound.is_loopback() || bound.is_unspecified();
    }
    names
        .iter()
        .any(|allowed| allowed.eq_ignore_ascii_case(name))
}

/// `host` without its `:port`; an IPv6 literal without its brackets.
fn without_port(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or_default();
    }
    match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ip_addresses_localhost_and_allowed_names_pass_other_names_do_not() {
        let loopback: IpAddr = "127.0.0.1".parse().unwrap();
        let every: IpAddr = "0.0.0.0".parse().unwrap();
        let lan: IpAddr = "10.0.0.5".parse().unwrap();
        let names = vec!["Dash.Internal".to_owned()];
        for host in ["127.0.0.1:9900", "127.0.0.1", "[::1]:9900", "10.0.0.5"] {
            assert!(allowed(Some(host), loopback, &[]), "{host}");
        }
        assert!(allowed(Some("localhost:9900"), loopback, &[]));
        assert!(allowed(Some("LOCALHOST"), every, &[]));
        assert!(
            !allowed(Some("localhost"), lan, &[]),
            "not this server's name"
        );
        assert!(allowed(Some("dash.internal:80"), lan, &names));
        for host in [
            "evil.example",
            "evil.example:9900",
            "127.0.0.1.evil.example",
            "",
        ] {
            assert!(!allowed(Some(host), loopback, &names), "{host}");
        }
        assert!(!allowed(None, loopback, &names), "no Host at all");
    }
}
