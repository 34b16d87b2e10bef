//! Rebuilds when a migration changes, since they are embedded in the binary.
fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
