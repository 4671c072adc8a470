//! TLS from a profile: rustls with the platform's verifier (native roots) or Mozilla's roots,
//! extra CAs, a client certificate, a minimum version. Certificate checks stay on unless a profile
//! says `insecure: true` in so many words, and then a WARN says so at build time.

use remcall_profile::{Roots, Tls, vars};

use crate::error::{Error, ErrorKind};

/// Applies `tls` to a reqwest client builder.
pub(crate) fn configure(
    mut builder: reqwest::ClientBuilder,
    tls: &Tls,
    client: &str,
) -> Result<reqwest::ClientBuilder, Error> {
    let config = |message: String| Error::new(ErrorKind::Config, message);
    let read = |field: &str, path: &str| -> Result<Vec<u8>, Error> {
        let path = vars::expand_env(path).map_err(|e| config(format!("tls.{field}: {e}")))?;
        std::fs::read(&path).map_err(|e| config(format!("tls.{field}: cannot read `{path}`: {e}")))
    };
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
    match (&tls.client_cert, &tls.client_key) {
        (Some(cert), Some(key)) => {
            let mut pem = read("client_cert", cert)?;
            pem.push(b'\n');
            pem.extend(read("client_key", key)?);
            let identity = reqwest::Identity::from_pem(&pem).map_err(|e| {
                config(format!(
                    "tls.client_cert/client_key: not a PEM certificate and key: {e}"
                ))
            })?;
            builder = builder.identity(identity);
        }
        (None, None) => {}
        _ => {
            return Err(config(
                "tls: client_cert and client_key go together".to_owned(),
            ));
        }
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
            client,
            "TLS certificate verification is OFF for this client (tls.insecure: true)"
        );
        builder = builder.tls_danger_accept_invalid_certs(true);
    }
    Ok(builder)
}
