//! Certificates for the tests' TLS endpoints: a fresh CA, and a server certificate
//! it signs for the names a server answers to.

/// A CA and a server certificate it signed.
pub struct Pki {
    /// The CA's certificate.
    pub ca: rcgen::Certificate,
    /// The server's certificate, signed by `ca`.
    pub cert: rcgen::Certificate,
    /// The server certificate's private key.
    pub key: rcgen::KeyPair,
}

impl Pki {
    /// A fresh CA called `ca_name` and a certificate for `names` signed by it.
    pub fn new(ca_name: &str, names: &[&str]) -> Pki {
        let ca_key = rcgen::KeyPair::generate().unwrap();
        let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        ca_params.distinguished_name.push(rcgen::DnType::CommonName, ca_name);
        let ca = ca_params.self_signed(&ca_key).unwrap();
        let key = rcgen::KeyPair::generate().unwrap();
        let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        let issuer = rcgen::Issuer::from_params(&ca_params, &ca_key);
        let cert = rcgen::CertificateParams::new(names).unwrap().signed_by(&key, &issuer).unwrap();
        Pki { ca, cert, key }
    }
}
