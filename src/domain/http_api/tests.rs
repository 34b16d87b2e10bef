//! Tests of the module above: descriptions read or refused with where they are wrong, and what they make a connector send and read.

use super::*;
use serde_json::json;

fn helpdesk() -> String {
    json!({
            "format": FORMAT,
            "errors": {"code": "/error", "business_rejections": ["ticket_closed"]},
            "http_codes": {"503": "transient_unavailable"},
            "operations": {
                "open_ticket": {
                    "request": {"method": "POST", "path": "/api/orders/{params.order}/tickets",
                                "body": {"subject": "Order {params.order}", "lines": "{params.lines}", "ref": "{op_id}"}},
                    "key": {"header": "X-Request-Key", "remembered_s": 3600},
                    "answer": {"id": "/ticket/number", "status": "/ticket/state"},
                    "lookup": {"path": "/api/tickets", "query": {"ref": "{op_id}"}, "object": "/tickets/0",
                               "id": "/number", "status": "/state", "match": {"/ref": "{op_id}"}},
                    "statuses": {"open": "succeeded", "queued": "pending", "refused": "failed"}
                }
            }
        })
        .to_string()
}

fn fill(params: &CanonicalParams) -> Fill<'_> {
    Fill { params, op_id: "ticket-1043", tenant: "acme", key: "acme:ticket-1043" }
}

#[test]
fn a_description_is_rendered_from_stored_parameters_only() {
    let api = HttpApi::parse(&helpdesk()).unwrap();
    let params = CanonicalParams::from_value(json!({"order": "10/43 x", "lines": [1, 2]})).unwrap();
    let spec = api.operation("open_ticket").unwrap();
    let rendered = spec.render(&fill(&params)).unwrap();
    assert_eq!(rendered.path, "/api/orders/10%2F43%20x/tickets", "a parameter stays one segment");
    assert_eq!(
        rendered.body,
        Some(json!({"subject": "Order 10/43 x", "lines": [1, 2], "ref": "ticket-1043"}))
    );
    let lookup = spec.render_lookup(&fill(&params)).unwrap().unwrap();
    assert_eq!(lookup.query, vec![("ref".to_owned(), "ticket-1043".to_owned())]);
    let missing = CanonicalParams::from_value(json!({"lines": []})).unwrap();
    assert_eq!(spec.render(&fill(&missing)).unwrap_err(), "params.order is missing");
}

#[test]
fn capabilities_come_from_what_the_description_declares() {
    let api = HttpApi::parse(&helpdesk()).unwrap();
    let caps = api.capabilities("open_ticket");
    assert_eq!(caps.key_retention, chrono::Duration::hours(1));
    assert!(caps.lookup && caps.outcomes_later);
    assert_eq!(caps.after_5xx, After5xx::Unknown, "left out, it is not known");
    let none = api.capabilities("send_letter");
    assert_eq!(none.key_retention, chrono::Duration::zero());
    assert!(!none.lookup, "a kind it does not serve honours nothing");
    assert_eq!(none.after_5xx, After5xx::Unknown);
    for value in After5xx::ALL {
        let mut description: Value = serde_json::from_str(&helpdesk()).unwrap();
        description["operations"]["open_ticket"]["key"]["after_5xx"] = json!(value.as_str());
        let api = HttpApi::parse(&description.to_string()).unwrap();
        assert_eq!(api.capabilities("open_ticket").after_5xx, value, "{}", value.as_str());
    }
}

#[test]
fn answers_and_lookups_are_read_by_the_description() {
    let api = HttpApi::parse(&helpdesk()).unwrap();
    let spec = api.operation("open_ticket").unwrap();
    let read = spec.read_answer(&json!({"ticket": {"number": 88, "state": "queued"}}));
    assert_eq!(read.external_id.as_deref(), Some("88"));
    assert_eq!(read.status, Some(ProviderStatus::Pending { needs_action: false }));
    let odd = spec.read_answer(&json!({"ticket": {"number": 88, "state": "archived"}}));
    assert_eq!(odd.status, None, "a status the description does not name means nothing");
    let params = CanonicalParams::from_value(json!({"order": "1043"})).unwrap();
    let listed = json!({"tickets": [{"number": 7, "state": "open", "ref": "ticket-1043"}]});
    let found = spec.found_in(&listed, &fill(&params)).unwrap();
    assert_eq!((found.external_id.as_deref(), found.status), (Some("7"), Some(ProviderStatus::Succeeded)));
    let other = json!({"tickets": [{"number": 7, "state": "open", "ref": "ticket-9"}]});
    assert_eq!(spec.found_in(&other, &fill(&params)), None, "another operation's object is not this one's");
    assert_eq!(spec.found_in(&json!({"tickets": []}), &fill(&params)), None);
    assert_eq!(
        api.classify(409, &json!({"error": "ticket_closed"}), None),
        Some(FailureClass::BusinessRejection)
    );
    assert_eq!(
        api.classify(503, &json!({}), Some(2)),
        Some(FailureClass::TransientUnavailable { retry_after_s: Some(2) })
    );
    assert_eq!(api.classify(502, &json!({}), None), Some(FailureClass::ServerError));
    let plain = HttpApi { http_codes: BTreeMap::new(), ..api.clone() };
    assert_eq!(plain.classify(503, &json!({}), None), Some(FailureClass::ServerError));
    assert_eq!(
        plain.classify(429, &json!({}), Some(1)),
        Some(FailureClass::TransientUnavailable { retry_after_s: Some(1) })
    );
}

#[test]
fn a_wrong_description_is_refused_saying_where() {
    let cases = [
        (json!({"format": "v2", "operations": {}}), "format: must be"),
        (json!({"format": FORMAT, "operations": {}}), "operations: names no operation kind"),
        (
            json!({"format": FORMAT, "operations": {"refund": {"request": {"method": "POST", "path": "/r"}}}}),
            "operations.refund: refunds go through",
        ),
        (
            json!({"format": FORMAT, "operations": {"ping": {"request": {"method": "GET", "path": "/p"}}}}),
            "operations.ping.request.method: must be POST",
        ),
        (
            json!({"format": FORMAT, "operations": {"ping": {"request": {"method": "POST", "path": "/p/{secret}"}}}}),
            "operations.ping.request.path: {secret} is not a placeholder",
        ),
        (
            json!({"format": FORMAT, "operations": {"ping": {"request": {"method": "POST", "path": "/p", "bdoy": {}}}}}),
            "unknown field `bdoy`",
        ),
        (
            json!({"format": FORMAT, "operations": {"ping": {"request": {"method": "POST", "path": "/p"},
                    "lookup": {"path": "/p", "query": {"q": "{params.order}"}}}}}),
            "operations.ping.lookup: must find the operation by what it wrote downstream",
        ),
        (
            json!({"format": FORMAT, "operations": {"ping": {"request": {"method": "POST", "path": "/p"},
                    "key": {"header": "Idempotency Key", "remembered_s": 60}}}}),
            "operations.ping.key.header",
        ),
        (
            json!({"format": FORMAT, "operations": {"ping": {"request": {"method": "POST", "path": "/p"},
                    "key": {"header": "X-Key", "remembered_s": 60, "after_5xx": "sometimes"}}}}),
            "unknown variant `sometimes`, expected one of `same_key`, `retry`, `unknown`",
        ),
        (
            json!({"format": FORMAT, "operations": {"ping": {"request": {"method": "POST", "path": "/p"},
                    "answer": {"status": "/state"}}}}),
            "operations.ping.statuses: must say what each status means",
        ),
    ];
    for (description, expected) in cases {
        let error = HttpApi::parse(&description.to_string()).unwrap_err().to_string();
        assert!(error.contains(expected), "{description}: {error}");
    }
}
