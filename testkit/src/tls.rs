//! A throwaway PKI for TLS tests: a CA, a server certificate for `localhost`, a client
//! certificate, written to a temporary directory so profiles can name the files.

use std::path::PathBuf;
use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
use rustls::RootCertStore;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::server::WebPkiClientVerifier;

/// Certificates made for one test.
pub struct Pki {
    _dir: tempfile::TempDir,
    /// The CA certificate (PEM file).
    pub ca_file: PathBuf,
    /// A client certificate signed by the CA (PEM file).
    pub client_cert: PathBuf,
    /// Its private key (PEM file).
    pub client_key: PathBuf,
    ca_der: CertificateDer<'static>,
    server_chain: Vec<CertificateDer<'static>>,
    server_key: PrivatePkcs8KeyDer<'static>,
}

impl std::fmt::Debug for Pki {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pki")
            .field("ca_file", &self.ca_file)
            .finish_non_exhaustive()
    }
}

impl Pki {
    /// Makes a CA, a `localhost` server certificate and a client certificate.
    pub fn new() -> Pki {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).expect("ca params");
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let ca_key = KeyPair::generate().expect("ca key");
        let ca = CertifiedIssuer::self_signed(ca_params, ca_key).expect("ca cert");

        let server_key = KeyPair::generate().expect("server key");
        let server = CertificateParams::new(vec!["localhost".to_owned()])
            .expect("server params")
            .signed_by(&server_key, &ca)
            .expect("server cert");
        let client_key = KeyPair::generate().expect("client key");
        let client = CertificateParams::new(vec!["remcall-test-client".to_owned()])
            .expect("client params")
            .signed_by(&client_key, &ca)
            .expect("client cert");

        let write = |name: &str, pem: String| {
            let path = dir.path().join(name);
            std::fs::write(&path, pem).expect("write pem");
            path
        };
        Pki {
            ca_file: write("ca.pem", ca.pem()),
            client_cert: write("client.pem", client.pem()),
            client_key: write("client.key", client_key.serialize_pem()),
            ca_der: ca.der().clone(),
            server_chain: vec![server.der().clone()],
            server_key: PrivatePkcs8KeyDer::from(server_key.serialize_der()),
            _dir: dir,
        }
    }

    /// A server configuration; with `require_client_cert`, only clients with a certificate from
    /// this CA get through the handshake.
    pub fn server_config(&self, require_client_cert: bool) -> Arc<rustls::ServerConfig> {
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .expect("protocol versions");
        let builder = if require_client_cert {
            let mut roots = RootCertStore::empty();
            roots.add(self.ca_der.clone()).expect("ca root");
            let verifier = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                .build()
                .expect("client verifier");
            builder.with_client_cert_verifier(verifier)
        } else {
            builder.with_no_client_auth()
        };
        let key = PrivateKeyDer::Pkcs8(self.server_key.clone_key());
        Arc::new(
            builder
                .with_single_cert(self.server_chain.clone(), key)
                .expect("server cert"),
        )
    }
}

impl Default for Pki {
    fn default() -> Self {
        Pki::new()
    }
}
