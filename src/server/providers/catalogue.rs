//! The order catalogue that the agent tools read: an order's line items, what each cost, and the
//! payment that paid for them. The tools derive an operation's id and amount from it, so that a
//! model never supplies an amount. The demo's catalogue holds the source articles' orders; the
//! sandbox provider seeds its payments from the same data.

/// One line of an order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineItem {
    pub id: &'static str,
    pub name: &'static str,
    pub amount_minor: i64,
}

/// One paid order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Order {
    pub id: &'static str,
    pub currency: &'static str,
    pub payment_intent: &'static str,
    pub line_items: &'static [LineItem],
}

impl Order {
    /// What the customer paid: the sum of the line items.
    pub fn paid_minor(&self) -> i64 {
        self.line_items.iter().map(|item| item.amount_minor).sum()
    }

    pub fn line_item(&self, id: &str) -> Option<&'static LineItem> {
        self.line_items.iter().find(|item| item.id == id)
    }
}

/// The demo's orders: 1043 (headphones and their case, paid in TWD, not shipped), A1042 (CNY,
/// refunded in two parts in the articles), and two more.
pub const DEMO_ORDERS: &[Order] = &[
    Order {
        id: "1043",
        currency: "TWD",
        payment_intent: "pi_1043",
        line_items: &[
            LineItem { id: "li_1", name: "Bluetooth headphones", amount_minor: 120_000 },
            LineItem { id: "li_2", name: "Headphone case", amount_minor: 38_000 },
        ],
    },
    Order {
        id: "A1042",
        currency: "CNY",
        payment_intent: "pi_A1042",
        line_items: &[
            LineItem { id: "li_1", name: "Desk lamp", amount_minor: 10_000 },
            LineItem { id: "li_2", name: "Lamp shade", amount_minor: 5_000 },
            LineItem { id: "li_3", name: "Bulbs, pack of four", amount_minor: 15_000 },
        ],
    },
    Order {
        id: "1051",
        currency: "TWD",
        payment_intent: "pi_1051",
        line_items: &[
            LineItem { id: "li_1", name: "Mechanical keyboard", amount_minor: 189_000 },
            LineItem { id: "li_2", name: "Wrist rest", amount_minor: 60_000 },
        ],
    },
    Order {
        id: "2002",
        currency: "USD",
        payment_intent: "pi_2002",
        line_items: &[LineItem { id: "li_1", name: "Travel adapter", amount_minor: 8_900 }],
    },
    Order {
        id: "1077",
        currency: "TWD",
        payment_intent: "pi_1077",
        line_items: &[
            LineItem { id: "li_1", name: "Studio monitors", amount_minor: 320_000 },
            LineItem { id: "li_2", name: "Monitor stands", amount_minor: 45_000 },
            LineItem { id: "li_3", name: "Speaker cables", amount_minor: 12_000 },
            LineItem { id: "li_4", name: "Acoustic foam", amount_minor: 30_000 },
        ],
    },
    Order {
        id: "1060",
        currency: "TWD",
        payment_intent: "pi_1060",
        line_items: &[
            LineItem { id: "li_1", name: "Noise-cancelling headphones", amount_minor: 250_000 },
            LineItem { id: "li_2", name: "Charging dock", amount_minor: 150_000 },
            LineItem { id: "li_3", name: "Audio cable", amount_minor: 9_000 },
        ],
    },
];

pub fn find_order(id: &str) -> Option<&'static Order> {
    DEMO_ORDERS.iter().find(|order| order.id == id)
}

/// Where the agent tools and the compensations read orders from.
pub trait OrderCatalogue: Send + Sync {
    /// The order `id`, if the shop has it.
    fn order(&self, id: &str) -> Option<Order>;
}

/// The demo's orders ([`DEMO_ORDERS`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct DemoCatalogue;

impl OrderCatalogue for DemoCatalogue {
    fn order(&self, id: &str) -> Option<Order> {
        find_order(id).copied()
    }
}

/// The parameters of the refund of one line item, the same whoever asks for it (an agent's tool,
/// a compensation, the demo), so that one intent always has one fingerprint.
pub fn refund_params(order: &Order, item: &LineItem) -> serde_json::Value {
    serde_json::json!({
        "payment_intent": order.payment_intent,
        "amount": {"minor": item.amount_minor, "currency": order.currency},
        "order": order.id,
        "line_item": item.id,
        "reason": "requested_by_customer",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_1043_is_the_articles_order() {
        let order = find_order("1043").unwrap();
        assert_eq!(order.paid_minor(), 158_000);
        assert_eq!(order.line_item("li_2").unwrap().amount_minor, 38_000);
        assert!(find_order("A1042").unwrap().paid_minor() >= 15_000);
        assert!(find_order("9999").is_none());
    }
}
