//! TLS from a profile: rustls with the platform's verifier (native roots) or Mozilla's roots,
//! extra CAs, a client certificate, a minimum version. Certificate checks stay on unless a profile
//! says `insecure: true` in so many words, and then a WARN says so at build time.

use std::sync::{Arc, OnceLock};

use remcall_profile::{Roots, Tls, vars};
use rustls::client::danger::ServerCertVerifier;

use crate::error::{Error, ErrorKind};

/// The platform's verifier, with the system's roots read and parsed once per process.
///
/// Reading and parsing them is most of what building a client costs (about 7 ms: reqwest does it
/// again for every client), while they do not change under a running service, and the verifier
/// holds nothing else. `None` when the system has no roots: the caller then takes reqwest's own
/// path, which reports that.
fn platform_verifier() -> Option<Arc<dyn ServerCertVerifier>> {
    static VERIFIER: OnceLock<Option<Arc<dyn ServerCertVerifier>>> = OnceLock::new();
    VERIFIER
        .get_or_init(|| {
            rustls_platform_verifier::Verifier::new(crypto_provider())
                .ok()
                .map(|v| Arc::new(v) as Arc<dyn ServerCertVerifier>)
        })
        .clone()
}

/// The crypto provider reqwest would pick: the one the process installed, else aws-lc-rs.
fn crypto_provider() -> Arc<rustls::crypto::CryptoProvider> {
    rustls::crypto::CryptoProvider::get_default()
        .cloned()
        .unwrap_or_else(|| Arc::new(rustls::crypto::aws_lc_rs::default_provider()))
}

/// The TLS setup of a profile that says nothing about TLS, as reqwest would build it (the
/// platform's verifier, safe default versions, h2 then http/1.1 offered by ALPN), but around the
/// shared verifier. Each client gets its own config, so TLS session tickets stay per client.
fn default_config() -> Option<rustls::ClientConfig> {
    let verifier = platform_verifier()?;
    let mut config = rustls::ClientConfig::builder_with_provider(crypto_provider())
        .with_safe_default_protocol_versions()
        .ok()?
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Some(config)
}

/// Applies `tls` to a reqwest client builder.
pub(crate) fn configure(
    mut builder: reqwest::ClientBuilder,
    tls: &Tls,
    client: &str,
) -> Result<reqwest::ClientBuilder, Error> {
    let says_nothing = matches!(tls.roots, None | Some(Roots::Native))
        && tls.ca_file.is_none()
        && tls.client_cert.is_none()
        && tls.client_key.is_none()
        && tls.min_version.is_none()
        && tls.insecure != Some(true);
    if says_nothing && let Some(preconfigured) = default_config() {
        return Ok(builder.tls_backend_preconfigured(preconfigured));
    }
    let read = read_pem;
    let mut extra = Vec::new();
    if let Some(ca_file) = &tls.ca_file {
        let pem = read("ca_file", ca_file)?;
        extra = reqwest::Certificate::from_pem_bundle(&pem)
            .map_err(|e| config(format!("tls.ca_file: not a PEM certificate bundle: {e}")))?;
        if extra.is_empty() {
            return Err(config(
                "tls.ca_file: the file holds no certificate".to_owned(),
            ));
        }
    }
    builder = match tls.roots.unwrap_or(Roots::Native) {
        Roots::Native if extra.is_empty() => builder,
        Roots::Native => builder.tls_certs_merge(extra),
        Roots::Webpki => {
            let mut roots: Vec<reqwest::Certificate> = webpki_root_certs::TLS_SERVER_ROOT_CERTS
                .iter()
                .filter_map(|der| reqwest::Certificate::from_der(der).ok())
                .collect();
            roots.extend(extra);
            builder.tls_certs_only(roots)
        }
    };
    if let Some(identity) = identity(tls, read)? {
        builder = builder.identity(identity);
    }
    if let Some(version) = &tls.min_version {
        let version = match version.as_str() {
            "1.2" => reqwest::tls::Version::TLS_1_2,
            "1.3" => reqwest::tls::Version::TLS_1_3,
            other => {
                return Err(config(format!(
                    "tls.min_version `{other}`: expected \"1.2\" or \"1.3\""
                )));
            }
        };
        builder = builder.tls_version_min(version);
    }
    if tls.insecure == Some(true) {
        tracing::warn!(
            target: crate::observe::outlets::log::TARGET,
            client,
            "TLS certificate verification is OFF for this client (tls.insecure: true)"
        );
        builder = builder.tls_danger_accept_invalid_certs(true);
    }
    Ok(builder)
}

fn config(message: String) -> Error {
    Error::new(ErrorKind::Config, message)
}

/// The PEM file a `tls.` key names, `${VAR}`s expanded.
fn read_pem(field: &str, path: &str) -> Result<Vec<u8>, Error> {
    let path = vars::expand_env(path).map_err(|e| config(format!("tls.{field}: {e}")))?;
    std::fs::read(&path).map_err(|e| config(format!("tls.{field}: cannot read `{path}`: {e}")))
}

/// The client certificate and key for mutual TLS, when both are set; one without the other is
/// an error.
fn identity(
    tls: &Tls,
    read: fn(&str, &str) -> Result<Vec<u8>, Error>,
) -> Result<Option<reqwest::Identity>, Error> {
    match (&tls.client_cert, &tls.client_key) {
        (Some(cert), Some(key)) => {
            let mut pem = read("client_cert", cert)?;
            pem.push(b'\n');
            pem.extend(read("client_key", key)?);
            reqwest::Identity::from_pem(&pem).map(Some).map_err(|e| {
                config(format!(
                    "tls.client_cert/client_key: not a PEM certificate and key: {e}"
                ))
            })
        }
        (None, None) => Ok(None),
        _ => Err(config(
            "tls: client_cert and client_key go together".to_owned(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_setup_reads_the_roots_once_and_offers_h2() {
        let first = platform_verifier().expect("the system's CA roots (Debian: ca-certificates)");
        let second = platform_verifier().unwrap();
        assert!(Arc::ptr_eq(&first, &second), "one verifier per process");

        let a = default_config().unwrap();
        assert_eq!(a.alpn_protocols, [b"h2".to_vec(), b"http/1.1".to_vec()]);
    }
}
