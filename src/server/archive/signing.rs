//! The server's archive signing key: an Ed25519 key derived from `OPLEDGER_SECRET_KEY`, so that
//! every instance of one server signs alike and nothing more has to be kept. Its public half is in
//! every manifest and printed by `opledger audit public-key`, for auditors to pin.

use ed25519_dalek::{Signature, Signer, SigningKey, Verifier, VerifyingKey};
use sha2::{Digest, Sha256};

use crate::domain::archive::{Manifest, SignedManifest};

/// Signs manifests.
#[derive(Clone)]
pub struct ArchiveSigner {
    key: SigningKey,
}

impl std::fmt::Debug for ArchiveSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ArchiveSigner({})", self.public_key())
    }
}

impl ArchiveSigner {
    /// The signer derived from the server's 32-byte key.
    pub fn derived_from(server_key: &[u8]) -> Self {
        let mut hasher = Sha256::new();
        hasher.update(b"opledger archive signing key\n");
        hasher.update(server_key);
        let seed: [u8; 32] = hasher.finalize().into();
        ArchiveSigner { key: SigningKey::from_bytes(&seed) }
    }

    /// The public key, in hex.
    pub fn public_key(&self) -> String {
        hex::encode(self.key.verifying_key().as_bytes())
    }

    /// `manifest` signed; its `public_key` is set to this signer's.
    pub fn sign(&self, mut manifest: Manifest) -> SignedManifest {
        manifest.public_key = self.public_key();
        let signature = self.key.sign(&manifest.signed_bytes());
        SignedManifest { manifest, signature: hex::encode(signature.to_bytes()) }
    }
}

/// Checks that `signed` was signed by the key its manifest names (and, when `pinned` is given,
/// that this is the pinned key); why not in words.
pub fn check_signature(signed: &SignedManifest, pinned: Option<&str>) -> Result<(), String> {
    let named = signed.manifest.public_key.as_str();
    if let Some(pinned) = pinned {
        if !pinned.trim().eq_ignore_ascii_case(named) {
            return Err(format!("signed by the key {named}, not by the pinned key {}", pinned.trim()));
        }
    }
    let key_bytes: [u8; 32] = hex::decode(named)
        .ok()
        .and_then(|bytes| bytes.try_into().ok())
        .ok_or_else(|| "the manifest's public key is not 32 bytes of hex".to_owned())?;
    let key = VerifyingKey::from_bytes(&key_bytes)
        .map_err(|_| "the manifest's public key is not a key".to_owned())?;
    let signature_bytes: [u8; 64] = hex::decode(&signed.signature)
        .ok()
        .and_then(|bytes| bytes.try_into().ok())
        .ok_or_else(|| "the signature is not 64 bytes of hex".to_owned())?;
    key.verify(&signed.manifest.signed_bytes(), &Signature::from_bytes(&signature_bytes))
        .map_err(|_| "the signature does not match the manifest: it was changed".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::archive::{ArchiveContents, MANIFEST_FORMAT};
    use crate::domain::ids::TenantId;

    fn manifest() -> Manifest {
        let at = chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        Manifest {
            format: MANIFEST_FORMAT.into(),
            contents: ArchiveContents::Operations,
            tenant: TenantId::parse("shop").unwrap(),
            archive_id: "a1".into(),
            object: "shop/operations/a1.parquet".into(),
            operations: 3,
            chain: None,
            closed_from: at,
            closed_to: at,
            sha256: "00".repeat(32),
            created_at: at,
            public_key: String::new(),
        }
    }

    #[test]
    fn a_signed_manifest_checks_and_a_changed_one_does_not() {
        let signer = ArchiveSigner::derived_from(&[7; 32]);
        let signed = signer.sign(manifest());
        assert_eq!(check_signature(&signed, None), Ok(()));
        assert_eq!(check_signature(&signed, Some(&signer.public_key())), Ok(()));
        let mut changed = signed.clone();
        changed.manifest.operations = 2;
        assert!(check_signature(&changed, None).unwrap_err().contains("was changed"));
        let other = ArchiveSigner::derived_from(&[8; 32]);
        assert!(check_signature(&signed, Some(&other.public_key())).unwrap_err().contains("pinned"));
        let resigned = other.sign(changed.manifest);
        assert!(check_signature(&resigned, Some(&signer.public_key())).is_err());
    }

    #[test]
    fn the_same_server_key_signs_alike() {
        assert_eq!(
            ArchiveSigner::derived_from(&[7; 32]).public_key(),
            ArchiveSigner::derived_from(&[7; 32]).public_key()
        );
        assert_ne!(
            ArchiveSigner::derived_from(&[7; 32]).public_key(),
            ArchiveSigner::derived_from(&[9; 32]).public_key()
        );
    }
}
