//! The console's assets: compressed as the browser accepts, cached as their names allow, and the
//! stylesheet linked by the name it was built with. (A build with hashed names is checked end to
//! end, where cargo-leptos writes the hash file beside the server.)

use crate::support::{Engine, TestApp};

#[tokio::test]
async fn assets_and_pages_are_compressed_and_unhashed_assets_are_revalidated() {
    let site = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(site.path().join("pkg")).unwrap();
    let css = "main { color: black; margin: 0 auto; }\n".repeat(2000);
    std::fs::write(site.path().join("pkg/opledger.css"), &css).unwrap();
    let root = site.path().display().to_string();
    let Some(app) = TestApp::spawn_with(Engine::Sqlite, |settings| settings.site_root = root).await else {
        return;
    };
    for encoding in ["gzip"] {
        let response = app
            .client
            .get(app.url("/pkg/opledger.css"))
            .header("accept-encoding", encoding)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(response.headers()["content-encoding"], encoding);
        assert_eq!(response.headers()["cache-control"], "no-cache", "an unhashed name is asked about again");
        let body = response.bytes().await.unwrap();
        assert!(body.len() * 10 < css.len(), "{encoding}: {} of {} bytes", body.len(), css.len());
    }
    let plain = app.client.get(app.url("/pkg/opledger.css")).send().await.unwrap();
    assert!(
        plain.headers().get("content-encoding").is_none(),
        "nothing is compressed for a client that did not ask"
    );
    assert_eq!(plain.bytes().await.unwrap().len(), css.len());

    let only_brotli =
        app.client.get(app.url("/pkg/opledger.css")).header("accept-encoding", "br").send().await.unwrap();
    assert!(only_brotli.headers().get("content-encoding").is_none(), "Brotli is not offered");
    let page = app.client.get(app.url("/login")).header("accept-encoding", "gzip, br").send().await.unwrap();
    assert_eq!(page.headers()["content-encoding"], "gzip", "pages are compressed too");
    assert_eq!(page.headers()["cache-control"], "no-store", "pages are never kept");
    let page = app.client.get(app.url("/login")).send().await.unwrap().text().await.unwrap();
    assert!(page.contains(r#"<link rel="stylesheet" id="leptos" href="/pkg/opledger.css">"#), "{page}");
}
