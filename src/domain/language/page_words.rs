//! The words a page's islands need in the browser, without Fluent there. The server writes the
//! messages of the browser's files ([`BROWSER_FILES`]) in the page's language into the page as a
//! JSON object of patterns, with each placeable left as `{$name}`; the browser reads it once at
//! start ([`install`]) and fills the placeables itself ([`fill`]). The browser's files hold
//! nothing but text and placeables (no selections, no functions), so filling them is all of
//! Fluent they need, and a test holds the fill to Fluent's output for every message.

use super::Arg;

/// The locale files whose messages the browser is given: the frame, states, ages and times
/// (`core.ftl`) and the operations list, which follows changes in the browser (`operations.ftl`).
pub const BROWSER_FILES: [&str; 2] = ["core.ftl", "operations.ftl"];

/// The element of every page that holds the browser's words.
pub const ELEMENT_ID: &str = "opledger-words";

/// A pattern with its `{$name}` placeables replaced by the values given; a placeable with no value
/// stays as it is written.
pub fn fill(pattern: &str, args: &[(&'static str, Arg)]) -> String {
    let mut filled = String::with_capacity(pattern.len());
    let mut rest = pattern;
    while let Some(start) = rest.find("{$") {
        let Some(length) = rest[start..].find('}').map(|end| end + 1) else { break };
        filled.push_str(&rest[..start]);
        let placeable = &rest[start..start + length];
        let name = &placeable[2..length - 1];
        match args.iter().find(|(given, _)| *given == name) {
            Some((_, Arg::Text(text))) => filled.push_str(text),
            Some((_, Arg::Number(number))) => filled.push_str(&number.to_string()),
            None => filled.push_str(placeable),
        }
        rest = &rest[start + length..];
    }
    filled.push_str(rest);
    filled
}

#[cfg(feature = "ssr")]
pub use server::{json_for, placeables_of_pattern};

#[cfg(not(feature = "ssr"))]
pub use browser::{install, text};

#[cfg(feature = "ssr")]
mod server {
    use std::borrow::Cow;
    use std::collections::{BTreeMap, BTreeSet, HashMap};
    use std::sync::LazyLock;

    use fluent_syntax::ast::{Entry, Expression, InlineExpression, Pattern, PatternElement};
    use fluent_templates::fluent_bundle::FluentValue;
    use fluent_templates::Loader;

    use super::super::{Language, WORDS};

    /// The browser's files of each language, in [`Language::ALL`]'s order.
    const SOURCES: [[&str; 2]; 3] = [
        [include_str!("../../../locales/en/core.ftl"), include_str!("../../../locales/en/operations.ftl")],
        [
            include_str!("../../../locales/zh-TW/core.ftl"),
            include_str!("../../../locales/zh-TW/operations.ftl"),
        ],
        [
            include_str!("../../../locales/zh-CN/core.ftl"),
            include_str!("../../../locales/zh-CN/operations.ftl"),
        ],
    ];

    fn placeables_of_expression(expression: &Expression<&str>, into: &mut BTreeSet<String>) {
        match expression {
            Expression::Select { selector, variants } => {
                placeables_of_inline(selector, into);
                for variant in variants {
                    placeables_of_pattern(&variant.value, into);
                }
            }
            Expression::Inline(inline) => placeables_of_inline(inline, into),
        }
    }

    fn placeables_of_inline(inline: &InlineExpression<&str>, into: &mut BTreeSet<String>) {
        match inline {
            InlineExpression::VariableReference { id } => {
                into.insert(id.name.to_owned());
            }
            InlineExpression::Placeable { expression } => placeables_of_expression(expression, into),
            InlineExpression::FunctionReference { arguments, .. } => {
                for argument in &arguments.positional {
                    placeables_of_inline(argument, into);
                }
            }
            _ => {}
        }
    }

    /// The names of the variables a pattern uses, in its selections and function calls too.
    pub fn placeables_of_pattern(pattern: &Pattern<&str>, into: &mut BTreeSet<String>) {
        for element in &pattern.elements {
            if let PatternElement::Placeable { expression } = element {
                placeables_of_expression(expression, into);
            }
        }
    }

    /// Every message of the browser's files in `language`, as Fluent writes it with each variable
    /// given as the text `{$name}`.
    pub(in crate::domain::language) fn patterns(language: Language) -> BTreeMap<String, String> {
        let mut patterns = BTreeMap::new();
        for source in SOURCES[language as usize] {
            let resource = fluent_syntax::parser::parse(source).expect("the locale files parse (tested)");
            for entry in &resource.body {
                let Entry::Message(message) = entry else { continue };
                let Some(value) = &message.value else { continue };
                let mut names = BTreeSet::new();
                placeables_of_pattern(value, &mut names);
                let args: HashMap<Cow<'static, str>, FluentValue> = names
                    .into_iter()
                    .map(|name| {
                        let marker = format!("{{${name}}}");
                        (Cow::Owned(name), FluentValue::from(marker))
                    })
                    .collect();
                let pattern = WORDS.lookup_with_args(language.identifier(), message.id.name, &args);
                patterns.insert(message.id.name.to_owned(), pattern);
            }
        }
        patterns
    }

    /// The browser's words in `language` as JSON that is safe inside a `<script>` element: `<`,
    /// `>` and `&` are written as `\u` escapes, so no text can close the element.
    pub fn json_for(language: Language) -> &'static str {
        static JSON: LazyLock<[String; 3]> = LazyLock::new(|| {
            Language::ALL.map(|language| {
                serde_json::to_string(&patterns(language))
                    .expect("a map of strings serializes")
                    .replace('<', "\\u003c")
                    .replace('>', "\\u003e")
                    .replace('&', "\\u0026")
            })
        });
        &JSON[language as usize]
    }
}

#[cfg(not(feature = "ssr"))]
mod browser {
    use std::collections::HashMap;
    use std::sync::OnceLock;

    use super::{fill, Arg};

    static PAGE_WORDS: OnceLock<HashMap<String, String>> = OnceLock::new();

    /// Takes the page's words (the JSON the server wrote); the first call wins.
    pub fn install(json: &str) {
        let words: HashMap<String, String> = serde_json::from_str(json).unwrap_or_default();
        let _ = PAGE_WORDS.set(words);
    }

    /// The words of `key` in the page's language, filled; the key itself when the page has no
    /// such words, so that a missing message shows rather than vanishes.
    pub fn text(key: &str, args: &[(&'static str, Arg)]) -> String {
        match PAGE_WORDS.get().and_then(|words| words.get(key)) {
            Some(pattern) => fill(pattern, args),
            None => key.to_owned(),
        }
    }
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use fluent_syntax::ast::{Entry, Expression, InlineExpression, PatternElement};

    use super::super::Language;
    use super::*;

    #[test]
    fn the_browsers_files_hold_only_text_and_variables() {
        for language in Language::ALL {
            for file in BROWSER_FILES {
                let path = format!("{}/locales/{}/{file}", env!("CARGO_MANIFEST_DIR"), language.tag());
                let text = std::fs::read_to_string(&path).unwrap();
                let resource = fluent_syntax::parser::parse(text.as_str()).unwrap();
                for entry in &resource.body {
                    let Entry::Message(message) = entry else { continue };
                    for element in &message.value.as_ref().unwrap().elements {
                        if let PatternElement::Placeable { expression } = element {
                            let plain = matches!(
                                expression,
                                Expression::Inline(
                                    InlineExpression::VariableReference { .. }
                                        | InlineExpression::StringLiteral { .. }
                                )
                            );
                            assert!(
                                plain,
                                "{path}: {} needs more than filling in the browser",
                                message.id.name
                            );
                        }
                    }
                    assert!(message.attributes.is_empty(), "{path}: {} has attributes", message.id.name);
                }
            }
        }
    }

    #[test]
    fn filling_a_pattern_gives_what_fluent_gives() {
        for language in Language::ALL {
            let patterns = server::patterns(language);
            assert!(patterns.len() > 100, "{language}: only {} browser messages", patterns.len());
            assert!(
                patterns.contains_key("state-needs-review") && patterns.contains_key("operations-live-on")
            );
            for (key, pattern) in &patterns {
                let mut names = Vec::new();
                let mut rest = pattern.as_str();
                while let Some(start) = rest.find("{$") {
                    let end = rest[start..].find('}').unwrap() + start;
                    names.push(rest[start + 2..end].to_owned());
                    rest = &rest[end + 1..];
                }
                let leaked: Vec<&'static str> = names.into_iter().map(|name| &*name.leak()).collect();
                let as_text: Vec<(&'static str, Arg)> =
                    leaked.iter().map(|name| (*name, Arg::Text(format!("<{name} & 1>")))).collect();
                let as_numbers: Vec<(&'static str, Arg)> = leaked
                    .iter()
                    .enumerate()
                    .map(|(i, name)| (*name, Arg::Number(1_234 * i as i64 + 7)))
                    .collect();
                for args in [as_text, as_numbers] {
                    assert_eq!(fill(pattern, &args), language.text(key, &args), "{language} {key}");
                }
            }
        }
    }

    #[test]
    fn the_json_cannot_close_its_script_element() {
        let json = json_for(Language::ZhTw);
        assert!(!json.contains('<') && !json.contains('>'));
        let words: std::collections::HashMap<String, String> = serde_json::from_str(json).unwrap();
        assert_eq!(words["age-minutes-ago"], "{$n} 分鐘前");
        assert_eq!(words["section-orders"], "訂單");
    }

    #[test]
    fn a_placeable_without_a_value_stays_written() {
        assert_eq!(fill("{$a} and {$b}", &[("a", Arg::Number(3))]), "3 and {$b}");
        assert_eq!(fill("no placeables", &[]), "no placeables");
        assert_eq!(fill("open {$", &[]), "open {$");
    }
}
