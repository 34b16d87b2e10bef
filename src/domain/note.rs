//! Internal notes on the support desk's items: plain text a person leaves for the next shift,
//! never sent to a provider or a customer. A note is checked here (not empty, at most
//! [`NOTE_MAX_CHARS`], no control characters but line breaks and tabs), its @mentions found, and
//! its text cut into the pieces a page shows: plain text, web links, and mentions of people who
//! exist (any other `@word` stays plain text). Nothing in a note is ever read as markup.

use serde::{Deserialize, Serialize};

/// The longest note, in characters.
pub const NOTE_MAX_CHARS: usize = 4000;

/// Why a note is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoteProblem {
    Empty,
    /// Longer than [`NOTE_MAX_CHARS`]: how long it is.
    TooLong(usize),
    /// It holds a control character other than a line break or a tab.
    ControlCharacter,
}

/// The note as it is kept: trimmed, with Windows line breaks made plain; or why not.
pub fn check_note(body: &str) -> Result<String, NoteProblem> {
    let body = body.replace("\r\n", "\n").trim().to_owned();
    if body.is_empty() {
        return Err(NoteProblem::Empty);
    }
    let length = body.chars().count();
    if length > NOTE_MAX_CHARS {
        return Err(NoteProblem::TooLong(length));
    }
    if body.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
        return Err(NoteProblem::ControlCharacter);
    }
    Ok(body)
}

/// One piece of a note as a page shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum NotePiece {
    Text(String),
    /// An `http` or `https` address.
    Link(String),
    /// `@name` of a person who exists.
    Mention(String),
}

/// Whether `c` may stand in a person's name after `@` (names are e-mail addresses or words with
/// dots, dashes and underscores).
fn name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '.' | '_' | '-' | '@' | '+')
}

/// The words of `body` that follow an `@` at the start or after a space or punctuation, with any
/// trailing dot, dash or `@` left out: the names a note may mention.
fn at_words(body: &str) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    let mut previous: Option<char> = None;
    for (at, c) in body.char_indices() {
        if c == '@' && previous.is_none_or(|p| !name_char(p)) {
            let start = at + 1;
            let end = body[start..].find(|c: char| !name_char(c)).map_or(body.len(), |length| start + length);
            let trimmed = body[start..end].trim_end_matches(['.', '-', '@', '+']);
            if !trimmed.is_empty() {
                found.push((start, start + trimmed.len()));
            }
        }
        previous = Some(c);
    }
    found
}

/// The people `body` mentions, of those `known` (each once, in the order first mentioned).
pub fn mentions(body: &str, known: &[String]) -> Vec<String> {
    let mut mentioned: Vec<String> = Vec::new();
    for (start, end) in at_words(body) {
        let name = &body[start..end];
        if known.iter().any(|person| person == name) && !mentioned.iter().any(|m| m == name) {
            mentioned.push(name.to_owned());
        }
    }
    mentioned
}

/// `body` cut into text, links and mentions of the `known` people.
pub fn pieces(body: &str, known: &[String]) -> Vec<NotePiece> {
    let mut marks: Vec<(usize, usize, NotePiece)> = at_words(body)
        .into_iter()
        .filter(|(start, end)| known.iter().any(|person| person == &body[*start..*end]))
        .map(|(start, end)| (start - 1, end, NotePiece::Mention(body[start..end].to_owned())))
        .collect();
    let mut from = 0;
    while let Some(found) = ["https://", "http://"].iter().filter_map(|scheme| body[from..].find(scheme)).min() {
        let start = from + found;
        let end = body[start..].find(char::is_whitespace).map_or(body.len(), |length| start + length);
        let link = body[start..end].trim_end_matches(['.', ',', ')', ';', ':', '!', '?', '」', '。', '，']);
        let end = start + link.len();
        if link.len() > "https://".len() && !marks.iter().any(|(s, e, _)| *s < end && start < *e) {
            marks.push((start, end, NotePiece::Link(link.to_owned())));
        }
        from = end.max(start + 1);
    }
    marks.sort_by_key(|(start, _, _)| *start);
    let mut out = Vec::new();
    let mut at = 0;
    for (start, end, piece) in marks {
        if start < at {
            continue;
        }
        if start > at {
            out.push(NotePiece::Text(body[at..start].to_owned()));
        }
        out.push(piece);
        at = end;
    }
    if at < body.len() {
        out.push(NotePiece::Text(body[at..].to_owned()));
    }
    out
}

/// The start of `body` a notification quotes: at most `max` characters, ending in `…` when cut.
pub fn excerpt(body: &str, max: usize) -> String {
    let flat = body.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        return flat;
    }
    let mut kept: String = flat.chars().take(max.saturating_sub(1)).collect();
    kept.push('…');
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn people() -> Vec<String> {
        vec!["sam.support".into(), "maria.manager".into(), "ana@example.com".into()]
    }

    #[test]
    fn a_note_is_trimmed_bounded_and_free_of_control_characters() {
        assert_eq!(check_note("  customer called\r\ntwo charges  "), Ok("customer called\ntwo charges".into()));
        assert_eq!(check_note(" \n "), Err(NoteProblem::Empty));
        assert_eq!(check_note(&"字".repeat(NOTE_MAX_CHARS)).map(|b| b.chars().count()), Ok(NOTE_MAX_CHARS));
        assert_eq!(check_note(&"x".repeat(NOTE_MAX_CHARS + 1)), Err(NoteProblem::TooLong(NOTE_MAX_CHARS + 1)));
        assert_eq!(check_note("bell\u{7}"), Err(NoteProblem::ControlCharacter));
        assert_eq!(check_note("tab\there"), Ok("tab\there".into()));
    }

    #[test]
    fn only_people_who_exist_are_mentioned_each_once() {
        let body = "@maria.manager please look; @nobody.here cannot, (@sam.support), mail@maria.manager no, @maria.manager.";
        assert_eq!(mentions(body, &people()), ["maria.manager", "sam.support"]);
        assert_eq!(mentions("cc @ana@example.com.", &people()), ["ana@example.com"]);
        assert!(mentions("no one @ all", &people()).is_empty());
    }

    #[test]
    fn a_note_is_cut_into_text_links_and_mentions_and_markup_stays_text() {
        let body = "<script>alert(1)</script> @sam.support see https://dashboard.stripe.com/refunds/re_1. @ghost";
        assert_eq!(
            pieces(body, &people()),
            [
                NotePiece::Text("<script>alert(1)</script> ".into()),
                NotePiece::Mention("sam.support".into()),
                NotePiece::Text(" see ".into()),
                NotePiece::Link("https://dashboard.stripe.com/refunds/re_1".into()),
                NotePiece::Text(". @ghost".into()),
            ]
        );
        assert_eq!(pieces("javascript:alert(1)", &people()), [NotePiece::Text("javascript:alert(1)".into())]);
        assert_eq!(pieces("見 http://example.com/a。", &[]), [
            NotePiece::Text("見 ".into()),
            NotePiece::Link("http://example.com/a".into()),
            NotePiece::Text("。".into()),
        ]);
    }

    #[test]
    fn an_excerpt_is_one_line_and_cut() {
        assert_eq!(excerpt("two\ncharges  on the card", 100), "two charges on the card");
        assert_eq!(excerpt("abcdef", 4), "abc…");
    }
}
