//! The console as a browser signed in to it sees it.

/// A client signed in to the console at `base` as `username`.
pub async fn signed_in(base: &str, username: &str, password: &str) -> reqwest::Client {
    let client = reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let login = client.get(format!("{base}/login")).send().await.unwrap().text().await.unwrap();
    let marker = "name=\"csrf\" value=\"";
    let start = login.find(marker).expect("a CSRF field") + marker.len();
    let csrf = login[start..].split('"').next().unwrap().to_owned();
    let answer = client
        .post(format!("{base}/login"))
        .form(&[("username", username), ("password", password), ("csrf", &csrf), ("next", "/")])
        .send()
        .await
        .unwrap();
    assert_eq!(answer.headers()["location"], "/", "{username} signed in");
    client
}

