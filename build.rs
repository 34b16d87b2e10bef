//! Rebuilds when a migration or a locale file changes (a new one too), since they are embedded in
//! the binary and the browser bundle.
fn main() {
    println!("cargo:rerun-if-changed=migrations");
    println!("cargo:rerun-if-changed=locales");
}
