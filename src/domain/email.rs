//! Customer emails: a tenant's templates (a name, a subject and a plain-text body with
//! placeholders), checked before they are saved, and the message one makes for an order. What is
//! sent is what the operation records: the rendered subject and text are its parameters.

use serde::{Deserialize, Serialize};

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
        if subject.is_empty() || subject.chars().count() > 200 || subject.chars().any(char::is_control) {
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
    /// `sender`: the message as written, so that what is sent is what was recorded.
    pub fn message(&self, facts: &EmailFacts, sender: &str) -> serde_json::Value {
        let (subject, text) = self.render(facts);
        serde_json::json!({
            "order": facts.order,
            "template": self.name,
            "from": sender,
            "to": facts.customer_email,
            "subject": subject,
            "text": text,
        })
    }

    /// The op id of this template sent about `order`: one intent per order and template.
    pub fn op_id(&self, order: &str) -> String {
        format!("email-{order}-{}", self.name)
    }
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
