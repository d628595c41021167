//! Mutual TLS for an HTTPS endpoint: the client identity of
//! `destination.auth.client_certificate`, made from the resolved values of
//! its two secret references, checked at registration ([`check`]) and
//! built into the endpoint's client ([`identity`]).

use crate::https::{
    CLIENT_CERTIFICATE_CHAIN_POINTER, CLIENT_CERTIFICATE_KEY_POINTER, HttpsDestination,
};
use relay_core::secret::{Secrets, Unresolved};
use relay_net::{ClientIdentity, IdentityError, IdentityPart};

use crate::Invalid;

/// The endpoint's client identity, when it has one: `Ok(None)` without
/// `auth.client_certificate`. A reference without a value, or values that
/// are not an identity (a chain or key replaced since registration), is
/// [`Unresolved`] naming the reference at fault, and the endpoint's
/// messages wait as for any reference that does not resolve.
pub fn identity(
    config: &HttpsDestination,
    secrets: &Secrets,
) -> Result<Option<ClientIdentity>, Unresolved> {
    let Some(cert) = config
        .auth
        .as_ref()
        .and_then(|a| a.client_certificate.as_ref())
    else {
        return Ok(None);
    };
    let chain = secrets.require(&cert.chain)?;
    let key = secrets.require(&cert.key)?;
    ClientIdentity::from_pem(chain.expose(), key.expose())
        .map(Some)
        .map_err(|e| {
            Unresolved(match e.part() {
                IdentityPart::Chain => cert.chain.clone(),
                IdentityPart::Key => cert.key.clone(),
            })
        })
}

/// The registration check of the resolved values: the chain is PEM
/// certificates, the key a PEM private key, and the key is the leaf's.
/// The answer names the field, never a value.
pub fn check(config: &HttpsDestination, secrets: &Secrets) -> Result<(), Invalid> {
    let Some(cert) = config
        .auth
        .as_ref()
        .and_then(|a| a.client_certificate.as_ref())
    else {
        return Ok(());
    };
    let (Some(chain), Some(key)) = (secrets.get(&cert.chain), secrets.get(&cert.key)) else {
        // The references are checked (and refused) before the values.
        return Ok(());
    };
    ClientIdentity::from_pem(chain.expose(), key.expose())
        .map(drop)
        .map_err(|e: IdentityError| Invalid {
            code: e.code(),
            pointer: match e.part() {
                IdentityPart::Chain => CLIENT_CERTIFICATE_CHAIN_POINTER,
                IdentityPart::Key => CLIENT_CERTIFICATE_KEY_POINTER,
            },
            message: e.to_string(),
        })
}
