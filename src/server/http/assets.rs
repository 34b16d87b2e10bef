//! The console's built assets under `/pkg/` (the wasm bundle, its script, the stylesheet): their
//! names, which carry a hash of their content when cargo-leptos builds with `hash-files` (it writes
//! the hashes to `hash.txt` beside the server binary), and how long browsers keep them. A hashed
//! name never changes its content, so it is kept for a year without asking again; an unhashed one
//! is revalidated on every visit.

use axum::{
    extract::{Request, State},
    http::{header::CACHE_CONTROL, HeaderValue},
    middleware::Next,
    response::Response,
};
use std::sync::LazyLock;

/// The assets of the bundle this server was built with, read once from the hash file beside it.
pub static BUILT_ASSETS: LazyLock<AssetNames> = LazyLock::new(AssetNames::beside_this_binary);

/// The output name cargo-leptos gives the bundle's files.
const OUTPUT_NAME: &str = "opledger";

/// The content hashes of the built bundle's files, when they have them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AssetNames {
    js: Option<String>,
    wasm: Option<String>,
    css: Option<String>,
}

impl AssetNames {
    /// Reads `hash.txt` beside the running binary; no hashes when there is none.
    fn beside_this_binary() -> AssetNames {
        let hash_file =
            std::env::current_exe().ok().and_then(|exe| exe.parent().map(|dir| dir.join("hash.txt")));
        match hash_file.and_then(|path| std::fs::read_to_string(path).ok()) {
            Some(text) => AssetNames::parse(&text),
            None => AssetNames::default(),
        }
    }

    /// The hashes in a hash file: lines such as `wasm: 9Xk2…`.
    pub fn parse(text: &str) -> AssetNames {
        let mut names = AssetNames::default();
        for line in text.lines() {
            let Some((file, hash)) = line.split_once(':') else { continue };
            let hash = hash.trim();
            if hash.is_empty() || !hash.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') {
                continue;
            }
            match file.trim() {
                "js" => names.js = Some(hash.to_owned()),
                "wasm" => names.wasm = Some(hash.to_owned()),
                "css" => names.css = Some(hash.to_owned()),
                _ => {}
            }
        }
        names
    }

    /// Whether the bundle's script and wasm carry hashes (Leptos then names them so in the page).
    pub fn hashed(&self) -> bool {
        self.js.is_some() && self.wasm.is_some()
    }

    /// The stylesheet's path.
    pub fn stylesheet(&self) -> String {
        match &self.css {
            Some(hash) => format!("/pkg/{OUTPUT_NAME}.{hash}.css"),
            None => format!("/pkg/{OUTPUT_NAME}.css"),
        }
    }
}

/// How long a browser may keep a file under `/pkg/`: a year when the names are hashed, otherwise
/// until it has asked whether it changed.
pub fn asset_cache_control(hashed: bool) -> &'static str {
    if hashed {
        "public, max-age=31536000, immutable"
    } else {
        "no-cache"
    }
}

/// Sets the caching of files under `/pkg/` (`hashed` as [`AssetNames::hashed`] says).
pub async fn cache_assets(State(hashed): State<bool>, request: Request, next: Next) -> Response {
    let is_asset = request.uri().path().starts_with("/pkg/");
    let mut response = next.run(request).await;
    if is_asset && response.status().is_success() {
        response.headers_mut().insert(CACHE_CONTROL, HeaderValue::from_static(asset_cache_control(hashed)));
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_file_names_the_stylesheet_and_marks_the_bundle_hashed() {
        let names = AssetNames::parse("js: abc123\nwasm: d-e_f9\ncss: Zz9\n");
        assert!(names.hashed());
        assert_eq!(names.stylesheet(), "/pkg/opledger.Zz9.css");
        assert_eq!(asset_cache_control(names.hashed()), "public, max-age=31536000, immutable");
    }

    #[test]
    fn without_hashes_assets_are_revalidated_and_a_strange_hash_is_ignored() {
        let names = AssetNames::parse("css: ../../etc/passwd\nwasm:\n");
        assert!(!names.hashed());
        assert_eq!(names.stylesheet(), "/pkg/opledger.css");
        assert_eq!(asset_cache_control(false), "no-cache");
    }
}
