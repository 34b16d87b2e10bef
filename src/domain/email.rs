//! Customer emails: a tenant's templates (a name, a subject and a plain-text body with
//! placeholders), checked before they are saved, and the message one makes for an order. What is
//! sent is what the operation records: the rendered subject and text are its parameters.
//!
//! Every address a message goes to or comes from, and every value that reaches one of its
//! headers, is checked here, once it is filled in: one mailbox in RFC 5321/5322 syntax (UTF-8 as
//! RFC 6532 allows, so an international address is taken as written), and never a line break.

use email_address::{EmailAddress, Options};
use serde::{Deserialize, Serialize};

/// The longest address a message is sent to: RFC 5321's path of 256 octets, less its brackets.
pub const ADDRESS_MAX_LEN: usize = 254;

/// The longest subject a message carries, filled in.
pub const SUBJECT_MAX_CHARS: usize = 200;

/// Why a text is not one address a message can be sent to.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AddressProblem {
    #[error("there is no address")]
    Missing,
    #[error("it holds a line break or another control character, which would start a new mail header")]
    LineBreak,
    #[error("it is longer than {ADDRESS_MAX_LEN} characters")]
    TooLong,
    #[error("it names more than one recipient, and a message here goes to exactly one")]
    SeveralRecipients,
    #[error("it is not an email address ({0})")]
    NotAnAddress(String),
}

/// Whether `c` would end a header line somewhere along a message's way: CR, LF and every other
/// control character, and Unicode's line and paragraph separators.
fn breaks_a_header(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}')
}

/// Checks that `value`, as filled in, can stand in a header: one line without control characters.
pub fn check_header_value(value: &str) -> Result<(), AddressProblem> {
    if value.chars().any(breaks_a_header) {
        return Err(AddressProblem::LineBreak);
    }
    Ok(())
}

/// `text` when it is exactly one recipient's address, `local@domain` with a dotted domain, of at
/// most [`ADDRESS_MAX_LEN`] characters; otherwise what is wrong with it.
pub fn recipient_address(text: &str) -> Result<&str, AddressProblem> {
    let address = text.trim_matches(' ');
    if address.is_empty() {
        return Err(AddressProblem::Missing);
    }
    check_header_value(address)?;
    if address.chars().count() > ADDRESS_MAX_LEN {
        return Err(AddressProblem::TooLong);
    }
    let options =
        Options::default().with_minimum_sub_domains(2).without_domain_literal().without_display_text();
    match EmailAddress::parse_with_options(address, options) {
        Ok(_) => Ok(address),
        Err(_) if address.contains([',', ';']) || address.matches('@').count() > 1 => {
            Err(AddressProblem::SeveralRecipients)
        }
        Err(error) => Err(AddressProblem::NotAnAddress(error.to_string())),
    }
}

/// Checks a sender as a connection names it: an address, alone or after a display name
/// (`Shop <support@shop.example>`).
pub fn check_sender(text: &str) -> Result<(), AddressProblem> {
    check_header_value(text)?;
    let text = text.trim();
    let address = match text.strip_suffix('>').and_then(|rest| rest.rsplit_once('<')) {
        Some((name, address)) => {
            if name.contains(['<', '>', '@', ',', ';']) && !name.trim().starts_with('"') {
                return Err(AddressProblem::NotAnAddress(
                    "the name before <address> holds <, >, @, , or ;".into(),
                ));
            }
            address
        }
        None => text,
    };
    recipient_address(address).map(|_| ())
}

/// The placeholders a template may use.
pub const PLACEHOLDERS: [&str; 3] = ["order", "shop", "customer_email"];

/// A tenant's email template.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmailTemplate {
    /// The name agents ask for it by: `refund_issued`.
    pub name: String,
    pub subject: String,
    pub body: String,
}

/// What fills a template's placeholders.
#[derive(Debug, Clone, Copy)]
pub struct EmailFacts<'a> {
    pub order: &'a str,
    pub shop: &'a str,
    pub customer_email: &'a str,
}

impl EmailTemplate {
    /// Checks the template, with a sentence that names the field at fault.
    pub fn check(&self) -> Result<(), String> {
        let name_ok = (1..=40).contains(&self.name.len())
            && self.name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        if !name_ok {
            return Err(
                "The name is 1 to 40 lowercase letters, digits or '_', for example refund_issued.".into()
            );
        }
        let subject = self.subject.trim();
        if subject.is_empty()
            || subject.chars().count() > SUBJECT_MAX_CHARS
            || subject.chars().any(breaks_a_header)
        {
            return Err("The subject is one line of 1 to 200 characters.".into());
        }
        if self.body.trim().is_empty() || self.body.chars().count() > 10_000 {
            return Err("The body is 1 to 10,000 characters of plain text.".into());
        }
        for (field, text) in [("subject", &self.subject), ("body", &self.body)] {
            check_placeholders(text).map_err(|problem| format!("The {field} {problem}"))?;
        }
        Ok(())
    }

    /// The subject and body for `facts`.
    pub fn render(&self, facts: &EmailFacts) -> (String, String) {
        (fill(self.subject.trim(), facts), fill(&self.body, facts))
    }

    /// The parameters of the operation that sends this template about `facts.order` from
    /// `sender`: the message as written, so that what is sent is what was recorded; or, when the
    /// message as filled in could never be sent (see [`check_message`]), the field at fault.
    pub fn message(&self, facts: &EmailFacts, sender: &str) -> Result<serde_json::Value, MessageProblem> {
        let (subject, text) = self.render(facts);
        let message = serde_json::json!({
            "order": facts.order,
            "template": self.name,
            "from": sender,
            "to": facts.customer_email,
            "subject": subject,
            "text": text,
        });
        check_message(&message)?;
        Ok(message)
    }

    /// The op id of this template sent about `order`: one intent per order and template.
    pub fn op_id(&self, order: &str) -> String {
        format!("email-{order}-{}", self.name)
    }
}

/// Why a message cannot be sent as it is filled in: the field at fault and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {problem}")]
pub struct MessageProblem {
    /// `to`, `from` or `subject`.
    pub field: &'static str,
    pub problem: String,
}

/// Checks a message as an operation's parameters hold it, whatever wrote them: `to` is exactly
/// one recipient's address, `from` a sender, and `subject` one line of 1 to [`SUBJECT_MAX_CHARS`]
/// characters, each as filled in. The body is no header and may hold line breaks.
pub fn check_message(params: &serde_json::Value) -> Result<(), MessageProblem> {
    let text = |field: &'static str| {
        params
            .get(field)
            .and_then(serde_json::Value::as_str)
            .ok_or_else(|| MessageProblem { field, problem: "it is missing".into() })
    };
    let fault = |field: &'static str| {
        move |problem: AddressProblem| MessageProblem { field, problem: problem.to_string() }
    };
    recipient_address(text("to")?).map_err(fault("to"))?;
    check_sender(text("from")?).map_err(fault("from"))?;
    let subject = text("subject")?;
    check_header_value(subject).map_err(fault("subject"))?;
    if subject.trim().is_empty() || subject.chars().count() > SUBJECT_MAX_CHARS {
        return Err(MessageProblem {
            field: "subject",
            problem: format!("it must be one line of 1 to {SUBJECT_MAX_CHARS} characters"),
        });
    }
    Ok(())
}

fn check_placeholders(text: &str) -> Result<(), String> {
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let close = after.find('}').ok_or("has a '{' without its '}'")?;
        let name = &after[..close];
        if !PLACEHOLDERS.contains(&name) {
            return Err(format!(
                "uses {{{name}}}, which is not a placeholder: use {}",
                PLACEHOLDERS.map(|known| format!("{{{known}}}")).join(", ")
            ));
        }
        rest = &after[close + 1..];
    }
    Ok(())
}

fn fill(text: &str, facts: &EmailFacts) -> String {
    text.replace("{order}", facts.order)
        .replace("{shop}", facts.shop)
        .replace("{customer_email}", facts.customer_email)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn template(subject: &str, body: &str) -> EmailTemplate {
        EmailTemplate { name: "refund_issued".into(), subject: subject.into(), body: body.into() }
    }

    #[test]
    fn a_template_is_filled_from_the_orders_facts() {
        let refund =
            template("Your refund for order {order}", "Hello,\n{shop} has refunded order {order}.\n");
        refund.check().unwrap();
        let facts = EmailFacts { order: "1043", shop: "acme", customer_email: "mei@example.com" };
        let (subject, body) = refund.render(&facts);
        assert_eq!(subject, "Your refund for order 1043");
        assert_eq!(body, "Hello,\nacme has refunded order 1043.\n");
    }

    #[test]
    fn an_address_is_exactly_one_recipient_and_never_a_header_of_its_own() {
        let long = format!("{}@{}.example", "a".repeat(60), vec!["b".repeat(60); 4].join("."));
        for (text, expected) in [
            ("mei@example.com\r\nBcc: x@evil.example", AddressProblem::LineBreak),
            ("mei@example.com\nBcc: x@evil.example", AddressProblem::LineBreak),
            ("mei@example.com\rBcc: x@evil.example", AddressProblem::LineBreak),
            ("mei@example.com\u{2028}Bcc: x@evil.example", AddressProblem::LineBreak),
            ("mei@example.com\u{2029}", AddressProblem::LineBreak),
            ("mei@example.com\u{85}", AddressProblem::LineBreak),
            ("a@x.example, b@y.example", AddressProblem::SeveralRecipients),
            ("a@x.example;b@y.example", AddressProblem::SeveralRecipients),
            ("", AddressProblem::Missing),
            (long.as_str(), AddressProblem::TooLong),
        ] {
            assert_eq!(recipient_address(text), Err(expected), "{text:?}");
        }
        for text in [
            "mei@",
            "@example.com",
            "mei",
            "mei@localhost",
            "mei@[127.0.0.1]",
            "Mei <mei@example.com>",
            "mei@exa mple.com",
        ] {
            assert!(
                matches!(recipient_address(text), Err(AddressProblem::NotAnAddress(_))),
                "{text:?}: {:?}",
                recipient_address(text)
            );
        }
        for text in [
            "mei@example.com",
            "li.mei+refunds@shop.example.com.tw",
            "mei@bücher.example",
            "用户@例子.广告",
            "\"mei lin\"@example.com",
        ] {
            assert_eq!(recipient_address(text), Ok(text), "{text:?} is one valid address, taken as written");
        }
    }

    #[test]
    fn a_sender_may_carry_a_name_and_nothing_more() {
        assert_eq!(check_sender("Acme Support <support@acme.example>"), Ok(()));
        assert_eq!(check_sender("support@acme.example"), Ok(()));
        assert!(check_sender("Acme <support@acme.example>\r\nBcc: x@evil.example").is_err());
        assert!(check_sender("Acme <support@acme.example, x@evil.example>").is_err());
        assert!(check_sender("not an address").is_err());
    }

    #[test]
    fn a_message_is_checked_as_filled_in() {
        let refund = template("Refund for {customer_email}", "Hello,\n{shop} has refunded order {order}.\n");
        refund.check().unwrap();
        let facts = |customer_email| EmailFacts { order: "1043", shop: "acme", customer_email };
        let sender = "Acme <support@acme.example>";
        assert!(refund.message(&facts("mei@example.com"), sender).is_ok());
        let injected = refund.message(&facts("mei@example.com\r\nBcc: x@evil.example"), sender).unwrap_err();
        assert_eq!(injected.field, "to", "{injected}");
        let params = serde_json::json!({"to": "mei@example.com", "from": sender, "subject": "Refund\r\nBcc: x@evil.example", "text": "x"});
        assert_eq!(check_message(&params).unwrap_err().field, "subject");
        let params = serde_json::json!({"to": "mei@example.com", "from": sender, "subject": "s".repeat(201), "text": "x"});
        assert_eq!(check_message(&params).unwrap_err().field, "subject");
        let params = serde_json::json!({"from": sender, "subject": "s", "text": "x"});
        assert_eq!(check_message(&params).unwrap_err().field, "to");
    }

    #[test]
    fn a_wrong_template_is_refused_saying_what_is_wrong() {
        assert!(template("Order {order}", "Dear {name}")
            .check()
            .unwrap_err()
            .contains("The body uses {name}"));
        assert!(template("Order {order", "x").check().unwrap_err().contains("The subject has a '{'"));
        assert!(template("two\nlines", "x").check().is_err());
        let unnamed = EmailTemplate { name: "Refund Issued".into(), ..template("s", "b") };
        assert!(unnamed.check().unwrap_err().starts_with("The name"));
    }
}
