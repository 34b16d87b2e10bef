//! The egress policy for URLs tenants set (provider connections, order sources, webhook
//! endpoints): by default they reach public addresses only, over https. Loopback, private,
//! link-local, carrier-grade NAT, multicast, unspecified, broadcast, documentation and reserved
//! addresses, their IPv6 equivalents and IPv4 addresses written as IPv6 are refused, each with a
//! sentence that says why, unless the operator allowed the address (`--allow-egress
//! 127.0.0.1:8080,10.0.0.0/8`), in which case plain http is allowed too. A URL is checked when it
//! is saved and again at every connection: the HTTP clients built here resolve names through the
//! policy, so the check sees the address actually connected to, and they never follow redirects.
//! A tenant's archive in a folder of the server's disk must be inside the folder the operator gave
//! for archives (`--archive-dir`): a tenant never makes the server write elsewhere.

use ipnet::IpNet;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

/// An address the operator allows beyond the public ones: a whole network, or one address on one
/// port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Allowed {
    Network(IpNet),
    Address(SocketAddr),
}

impl Allowed {
    /// `10.0.0.0/8`, `127.0.0.1` (every port) or `127.0.0.1:8080`, `[::1]:8080`.
    pub fn parse(text: &str) -> Result<Allowed, String> {
        let text = text.trim();
        if let Ok(address) = text.parse::<SocketAddr>() {
            return Ok(Allowed::Address(address));
        }
        if let Ok(ip) = text.parse::<IpAddr>() {
            return Ok(Allowed::Network(IpNet::from(ip)));
        }
        text.parse::<IpNet>().map(Allowed::Network).map_err(|_| {
            format!("{text:?} is not an address, an address:port or a network such as 10.0.0.0/8")
        })
    }

    fn covers(&self, ip: IpAddr, port: u16) -> bool {
        match self {
            Allowed::Network(network) => network.contains(&ip),
            Allowed::Address(address) => address.ip() == ip && address.port() == port,
        }
    }
}

/// Why an address is not one a tenant's URL may reach, or `None` for a public one.
pub fn refused_class(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => refused_v4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => {
                refused_v4(v4).map(|_| "an IPv4 address written as IPv6 (IPv4-mapped) that is not public")
            }
            None => refused_v6(v6),
        },
    }
}

fn in_net(ip: Ipv4Addr, network: &str) -> bool {
    network.parse::<ipnet::Ipv4Net>().is_ok_and(|net| net.contains(&ip))
}

fn refused_v4(ip: Ipv4Addr) -> Option<&'static str> {
    Some(if ip.is_loopback() {
        "a loopback address (this machine)"
    } else if ip.is_private() {
        "a private network address"
    } else if ip.is_link_local() {
        "a link-local address (cloud metadata services live there)"
    } else if in_net(ip, "100.64.0.0/10") {
        "a carrier-grade NAT address"
    } else if ip.is_multicast() {
        "a multicast address"
    } else if ip.is_unspecified() || in_net(ip, "0.0.0.0/8") {
        "an unspecified address"
    } else if ip.is_broadcast() {
        "the broadcast address"
    } else if ip.is_documentation() || in_net(ip, "198.18.0.0/15") {
        "an address reserved for documentation and tests"
    } else if in_net(ip, "192.0.0.0/24") || in_net(ip, "240.0.0.0/4") {
        "a reserved address"
    } else {
        return None;
    })
}

fn in_net6(ip: Ipv6Addr, network: &str) -> bool {
    network.parse::<ipnet::Ipv6Net>().is_ok_and(|net| net.contains(&ip))
}

fn refused_v6(ip: Ipv6Addr) -> Option<&'static str> {
    Some(if ip.is_loopback() {
        "a loopback address (this machine)"
    } else if ip.is_unspecified() {
        "an unspecified address"
    } else if in_net6(ip, "fc00::/7") {
        "a private network address (unique local)"
    } else if in_net6(ip, "fe80::/10") {
        "a link-local address"
    } else if ip.is_multicast() {
        "a multicast address"
    } else if in_net6(ip, "::/96") || in_net6(ip, "64:ff9b::/96") || in_net6(ip, "2002::/16") {
        "an address that carries an IPv4 address (IPv4-compatible, NAT64 or 6to4)"
    } else if in_net6(ip, "2001:db8::/32") || in_net6(ip, "100::/64") {
        "an address reserved for documentation and tests"
    } else {
        return None;
    })
}

/// Which addresses tenants' URLs may reach.
#[derive(Debug, Clone, Default)]
pub struct EgressPolicy {
    allowed: Vec<Allowed>,
    /// Everything is reachable: the operator's own settings, never a tenant's URL.
    unrestricted: bool,
    /// The folder tenants' archives on the server's disk must be inside.
    archive_dir: Option<std::path::PathBuf>,
}

impl EgressPolicy {
    /// Public addresses over https, and `allowed` besides (over http too).
    pub fn new(allowed: Vec<Allowed>) -> Self {
        Self { allowed, unrestricted: false, archive_dir: None }
    }

    /// No check at all: for the URLs the operator configured the server with.
    pub fn unrestricted() -> Self {
        Self { allowed: Vec::new(), unrestricted: true, archive_dir: None }
    }

    /// The same policy, letting tenants keep archives in folders inside `dir` (an absolute path).
    pub fn with_archive_dir(mut self, dir: Option<std::path::PathBuf>) -> Self {
        self.archive_dir = dir;
        self
    }

    /// Whether a tenant's archive may be the folder `folder` (absolute, without `..`): inside the
    /// operator's archive folder; why not in words.
    pub fn check_folder(&self, folder: &str) -> Result<(), String> {
        if self.unrestricted {
            return Ok(());
        }
        match &self.archive_dir {
            Some(dir) if std::path::Path::new(folder).starts_with(dir) => Ok(()),
            Some(dir) => Err(format!(
                "{folder} is outside the server's archive folder {}: a tenant's archive folder is inside it",
                dir.display()
            )),
            None => Err("this server keeps no archive folder for tenants (its operator sets --archive-dir); use an S3 bucket".to_owned()),
        }
    }

    /// The same policy, allowing `more` too.
    pub fn allowing(mut self, more: impl IntoIterator<Item = Allowed>) -> Self {
        self.allowed.extend(more);
        self
    }

    fn operator_allows(&self, ip: IpAddr, port: u16) -> bool {
        self.unrestricted || self.allowed.iter().any(|allowed| allowed.covers(ip, port))
    }

    /// Whether a URL of scheme `https` (or not) may reach `ip` on `port`; why not in words
    /// ("127.0.0.1 is a loopback address …").
    pub fn check_address(&self, ip: IpAddr, port: u16, https: bool) -> Result<(), String> {
        self.refusal(ip, port, https).map_or(Ok(()), |why| Err(format!("{ip} is {why}")))
    }

    /// Why a URL of scheme `https` (or not) may not reach `ip` on `port`, as a phrase about the
    /// address, or `None` when it may.
    fn refusal(&self, ip: IpAddr, port: u16, https: bool) -> Option<String> {
        if self.operator_allows(ip, port) {
            return None;
        }
        if let Some(class) = refused_class(ip) {
            return Some(format!(
                "{class}; tenants' URLs reach public addresses only (the operator can allow more with --allow-egress)"
            ));
        }
        (!https).then(|| "reached over plain http; tenants' URLs use https".to_owned())
    }

    /// Whether `name`'s address `ip` may be reached on `port`; why not in words.
    fn check_resolved(&self, name: &str, ip: IpAddr, port: u16, https: bool) -> Result<(), String> {
        self.refusal(ip, port, https)
            .map_or(Ok(()), |why| Err(format!("{name} resolves to {ip}, which is {why}")))
    }

    /// Checks `url` now: a scheme of http(s) with a host, and every address its host resolves to
    /// allowed. A name that does not resolve now cannot be checked; it is checked again at every
    /// connection.
    pub async fn check_url(&self, url: &str) -> Result<(), String> {
        let parsed = reqwest::Url::parse(url.trim()).map_err(|_| format!("{url:?} is not a URL"))?;
        let https = scheme_is_https(&parsed)?;
        let port = parsed.port_or_known_default().unwrap_or(443);
        match parsed.host() {
            None => Err("the URL has no host".to_owned()),
            Some(url::Host::Ipv4(ip)) => self.check_address(IpAddr::V4(ip), port, https),
            Some(url::Host::Ipv6(ip)) => self.check_address(IpAddr::V6(ip), port, https),
            Some(url::Host::Domain(name)) => match tokio::net::lookup_host((name, port)).await {
                Ok(addresses) => {
                    for address in addresses {
                        self.check_resolved(name, address.ip(), port, https)?;
                    }
                    Ok(())
                }
                Err(_) if self.unrestricted || https => Ok(()),
                Err(error) => Err(format!("{name} could not be resolved ({error})")),
            },
        }
    }

    /// An HTTP client for requests to `url` alone, giving up after `timeout` (connecting, after
    /// at most `connect_timeout`): it resolves the host through this policy, connects only to
    /// addresses it allows, and follows no redirect. Refused, with the reason, when the URL names
    /// an address the policy does not allow.
    pub fn client(
        &self,
        url: &str,
        timeout: Duration,
        connect_timeout: Duration,
    ) -> Result<reqwest::Client, String> {
        let parsed = reqwest::Url::parse(url.trim()).map_err(|_| format!("{url:?} is not a URL"))?;
        let https = scheme_is_https(&parsed)?;
        let port = parsed.port_or_known_default().unwrap_or(443);
        match parsed.host() {
            Some(url::Host::Ipv4(ip)) => self.check_address(IpAddr::V4(ip), port, https)?,
            Some(url::Host::Ipv6(ip)) => self.check_address(IpAddr::V6(ip), port, https)?,
            Some(url::Host::Domain(_)) => {}
            None => return Err("the URL has no host".to_owned()),
        }
        let resolver = PolicyResolver { policy: self.clone(), port, https };
        reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(connect_timeout)
            .redirect(reqwest::redirect::Policy::none())
            .dns_resolver(Arc::new(resolver))
            .build()
            .map_err(|error| format!("no HTTP client: {error}"))
    }
}

impl EgressPolicy {
    /// The addresses of `host` this policy allows on `port` for a connection that is encrypted
    /// (`secure`) or not, resolved now; when it allows none, why in words.
    pub async fn allowed_addresses(
        &self,
        host: &str,
        port: u16,
        secure: bool,
    ) -> Result<Vec<SocketAddr>, String> {
        let found: Vec<SocketAddr> = tokio::net::lookup_host((host, port))
            .await
            .map_err(|error| format!("{host} could not be resolved ({error})"))?
            .collect();
        let mut refusals = Vec::new();
        let allowed: Vec<SocketAddr> = found
            .into_iter()
            .filter(|address| match self.check_resolved(host, address.ip(), port, secure) {
                Ok(()) => true,
                Err(why) => {
                    refusals.push(why);
                    false
                }
            })
            .collect();
        if allowed.is_empty() {
            return Err(refusals
                .first()
                .cloned()
                .unwrap_or_else(|| format!("{host} resolves to no address")));
        }
        Ok(allowed)
    }
}

/// Whether `url` is https (or plain http); any other scheme is refused.
fn scheme_is_https(url: &reqwest::Url) -> Result<bool, String> {
    match url.scheme() {
        "https" => Ok(true),
        "http" => Ok(false),
        _ => Err("the URL must be an http or https address (https, unless the operator allows the address)"
            .to_owned()),
    }
}

/// Resolves a host for one client, keeping only the addresses its policy allows on its port.
struct PolicyResolver {
    policy: EgressPolicy,
    port: u16,
    https: bool,
}

impl reqwest::dns::Resolve for PolicyResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let (policy, port, https) = (self.policy.clone(), self.port, self.https);
        Box::pin(async move {
            let allowed = policy
                .allowed_addresses(name.as_str(), port, https)
                .await
                .map_err(|why| format!("refused by the egress policy: {why}"))?;
            let addresses: reqwest::dns::Addrs = Box::new(allowed.into_iter());
            Ok(addresses)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(text: &str) -> bool {
        refused_class(text.parse().unwrap()).is_some()
    }

    #[test]
    fn every_internal_address_class_is_refused_and_public_ones_are_not() {
        for internal in [
            "127.0.0.1",
            "127.0.0.2",
            "10.0.0.5",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "224.0.0.1",
            "0.0.0.0",
            "255.255.255.255",
            "192.0.2.1",
            "240.0.0.1",
            "::1",
            "::",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "ff02::1",
            "::ffff:10.0.0.1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "64:ff9b::a00:1",
            "2002:a00:1::",
            "2001:db8::1",
        ] {
            assert!(refused(internal), "{internal} is refused");
        }
        for public in ["93.184.216.34", "1.1.1.1", "2606:4700:4700::1111", "::ffff:1.1.1.1"] {
            assert!(!refused(public), "{public} is public");
        }
    }

    #[test]
    fn the_operator_allows_networks_and_single_ports_and_plain_http_only_for_them() {
        let policy = EgressPolicy::new(vec![
            Allowed::parse("127.0.0.1:8080").unwrap(),
            Allowed::parse("10.0.0.0/8").unwrap(),
        ]);
        let ip = |text: &str| text.parse::<IpAddr>().unwrap();
        assert!(policy.check_address(ip("127.0.0.1"), 8080, false).is_ok());
        assert!(policy.check_address(ip("127.0.0.1"), 8081, false).is_err(), "another port");
        assert!(policy.check_address(ip("10.1.2.3"), 80, false).is_ok());
        assert!(policy
            .check_address(ip("192.168.1.1"), 443, true)
            .unwrap_err()
            .contains("a private network address"));
        assert!(policy.check_address(ip("1.1.1.1"), 443, true).is_ok());
        assert!(policy.check_address(ip("1.1.1.1"), 80, false).unwrap_err().contains("plain http"));
        assert!(Allowed::parse("not-an-address").is_err());
        assert!(EgressPolicy::unrestricted().check_address(ip("127.0.0.1"), 1, false).is_ok());
    }

    #[test]
    fn a_client_for_an_internal_literal_address_is_never_built() {
        let policy = EgressPolicy::default();
        let timeout = Duration::from_secs(1);
        let refused =
            policy.client("http://169.254.169.254/latest/meta-data/", timeout, timeout).unwrap_err();
        assert!(refused.contains("link-local"), "{refused}");
        assert!(policy.client("https://[::ffff:10.0.0.1]/", timeout, timeout).is_err());
        assert!(policy.client("https://api.stripe.com", timeout, timeout).is_ok());
    }
}
