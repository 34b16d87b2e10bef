//! The console's pages as the server renders them, before any JavaScript runs.

crate::engine_tests! {
    the_shell_is_rendered_on_the_server(app) {
        let response = app.get("/").await;
        assert_eq!(response.status(), 200);
        let html = response.text().await.unwrap();
        for section in ["Overview", "Operations", "Orders", "Approvals", "Reconcile", "Audit"] {
            assert!(html.contains(&format!(">{section}</a>")), "navigation lacks {section}");
        }
        assert!(html.contains("<title>Overview · opledger</title>"), "{html}");
        assert!(html.contains("/pkg/opledger.js"), "the page loads the browser bundle");
        let button = html
            .split("<button")
            .map(|rest| rest.split('>').next().unwrap())
            .find(|tag| tag.contains("data-testid=\"check-connection\""))
            .expect("the connection check button");
        assert!(button.contains("disabled"), "the interactive button is disabled until hydration: {button}");
    }

    an_unknown_address_is_a_404_page(app) {
        let response = app.get("/no/such/page").await;
        assert_eq!(response.status(), 404);
        assert!(response.text().await.unwrap().contains("Page not found"));
    }
}
