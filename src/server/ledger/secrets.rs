//! Secrets at rest: a provider connection's secret is sealed with XChaCha20-Poly1305 under the
//! server's key (`OPLEDGER_SECRET_KEY`, 32 bytes written as 64 hexadecimal digits), with a fresh
//! random nonce, and bound to its tenant and provider name as associated data, so a sealed secret
//! copied to another row does not open. Only the ledger seals and opens them.

use chacha20poly1305::aead::{Aead, AeadCore, KeyInit, OsRng, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};

use crate::domain::ids::TenantId;

/// The length of an XChaCha20 nonce, in bytes.
const NONCE_BYTES: usize = 24;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecretKeyError {
    #[error("OPLEDGER_SECRET_KEY must be 64 hexadecimal digits (32 bytes), for example from `openssl rand -hex 32`")]
    Malformed,
    #[error("no OPLEDGER_SECRET_KEY is set; it is needed to seal and open provider secrets")]
    Missing,
    #[error(
        "the provider secret of {tenant}/{name} does not open with this OPLEDGER_SECRET_KEY: it is not the key the secrets were sealed with"
    )]
    WrongKey { tenant: String, name: String },
}

/// Seals and opens provider secrets with the server's key. Its `Debug` shows nothing of the key.
#[derive(Clone)]
pub struct SecretBox {
    cipher: XChaCha20Poly1305,
    /// The archive's signing key, derived from the same server key.
    signer: crate::server::archive::signing::ArchiveSigner,
}

impl std::fmt::Debug for SecretBox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretBox(..)")
    }
}

fn associated_data(tenant: &TenantId, name: &str) -> String {
    format!("opledger provider secret\n{tenant}\n{name}")
}

impl SecretBox {
    /// The box for the key written as 64 hexadecimal digits.
    pub fn from_hex(key: &str) -> Result<SecretBox, SecretKeyError> {
        let bytes = hex::decode(key.trim()).map_err(|_| SecretKeyError::Malformed)?;
        let cipher = XChaCha20Poly1305::new_from_slice(&bytes).map_err(|_| SecretKeyError::Malformed)?;
        let signer = crate::server::archive::signing::ArchiveSigner::derived_from(&bytes);
        Ok(SecretBox { cipher, signer })
    }

    /// `secret` sealed for the connection `name` of `tenant`: nonce and ciphertext, in hex.
    pub fn seal(&self, tenant: &TenantId, name: &str, secret: &str) -> String {
        let nonce = XChaCha20Poly1305::generate_nonce(&mut OsRng);
        let aad = associated_data(tenant, name);
        let sealed = self
            .cipher
            .encrypt(&nonce, Payload { msg: secret.as_bytes(), aad: aad.as_bytes() })
            .expect("XChaCha20-Poly1305 seals any message of this size");
        let mut out = nonce.to_vec();
        out.extend(sealed);
        hex::encode(out)
    }

    /// Signs the archive's manifests with the key derived from the server's.
    pub fn archive_signer(&self) -> &crate::server::archive::signing::ArchiveSigner {
        &self.signer
    }

    /// The secret that `seal` sealed for the connection `name` of `tenant`.
    pub fn open(&self, tenant: &TenantId, name: &str, sealed: &str) -> Result<String, SecretKeyError> {
        let wrong = || SecretKeyError::WrongKey { tenant: tenant.to_string(), name: name.to_owned() };
        let bytes = hex::decode(sealed).map_err(|_| wrong())?;
        if bytes.len() < NONCE_BYTES {
            return Err(wrong());
        }
        let (nonce, ciphertext) = bytes.split_at(NONCE_BYTES);
        let aad = associated_data(tenant, name);
        let opened = self
            .cipher
            .decrypt(XNonce::from_slice(nonce), Payload { msg: ciphertext, aad: aad.as_bytes() })
            .map_err(|_| wrong())?;
        String::from_utf8(opened).map_err(|_| wrong())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

    #[test]
    fn a_sealed_secret_opens_only_with_its_key_for_its_own_connection() {
        let acme = TenantId::parse("acme").unwrap();
        let secrets = SecretBox::from_hex(KEY).unwrap();
        let sealed = secrets.seal(&acme, "stripe", "sk_test_acme_4242");
        assert!(!sealed.contains("4242"), "the secret is not readable in what is stored");
        assert_ne!(sealed, secrets.seal(&acme, "stripe", "sk_test_acme_4242"), "a fresh nonce every time");
        assert_eq!(secrets.open(&acme, "stripe", &sealed).unwrap(), "sk_test_acme_4242");

        let globex = TenantId::parse("globex").unwrap();
        assert!(matches!(secrets.open(&globex, "stripe", &sealed), Err(SecretKeyError::WrongKey { .. })));
        assert!(secrets.open(&acme, "sandbox", &sealed).is_err(), "bound to its provider name");
        let other = SecretBox::from_hex(&"ff".repeat(32)).unwrap();
        assert!(other.open(&acme, "stripe", &sealed).is_err(), "another key opens nothing");
    }

    #[test]
    fn a_malformed_key_is_refused_with_how_to_make_one() {
        assert_eq!(SecretBox::from_hex("short").unwrap_err(), SecretKeyError::Malformed);
        assert_eq!(SecretBox::from_hex(&"zz".repeat(32)).unwrap_err(), SecretKeyError::Malformed);
        assert!(SecretKeyError::Malformed.to_string().contains("openssl rand -hex 32"));
        assert!(format!("{:?}", SecretBox::from_hex(KEY).unwrap()).contains(".."));
    }
}
