//! The HTTPS destinations of the consumer portal: a portal endpoint
//! delivers to an `https://` URL (a product rule), created and moved by its
//! URL alone; its custom headers and client authentication are the
//! tenant's, set through the API.

use relay_core::model::Destination;

use crate::Config;
use crate::https::HttpsDestination;

/// A destination to `url`, with no custom headers and no client
/// authentication: what the portal creates.
pub fn destination(url: String) -> Config {
    Config::Https(HttpsDestination {
        url,
        auth: None,
        headers: Vec::new(),
        a2a_push: None,
    })
}

/// `current` moved to `url`, keeping its custom headers, client
/// authentication and A2A push profile; `None` when `current` is not an HTTPS destination (the
/// portal changes no other kind) or does not read as one.
pub fn with_url(current: &Destination, url: &str) -> Option<Config> {
    let Ok(Config::Https(h)) = Config::try_from(current) else {
        return None;
    };
    Some(Config::Https(HttpsDestination {
        url: url.to_string(),
        auth: h.auth,
        headers: h.headers,
        a2a_push: h.a2a_push,
    }))
}
