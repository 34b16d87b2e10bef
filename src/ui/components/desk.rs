//! The support desk on an item's page: who holds it and since when (or that nobody does), with the
//! viewer's forms to claim, release or (a manager's) assign it; and its internal notes, with the
//! forms to add one and to edit one's own. Each is a plain HTML form with the session's CSRF token
//! and a form key made by the server.

use leptos::prelude::*;

use crate::console::desk::{AddNote, EditNote, Hold, HoldingView, NotesView};
use crate::domain::note::NotePiece;
use crate::console::language::current_language;
use crate::t;
use crate::ui::components::widgets::{slot, textarea_text, with_views, Time};

/// The holding panel of one item; `form_key` is the page's form key prefix.
#[component]
pub fn HoldingPanel(holding: HoldingView, csrf: String, form_key: String) -> impl IntoView {
    let language = current_language();
    let hold = ServerAction::<Hold>::new();
    let form = {
        let (csrf, form_key, kind, id) =
            (csrf.clone(), form_key.clone(), holding.item_kind.clone(), holding.item_id.clone());
        move |action: &'static str, label: String, to: Option<Vec<String>>| {
            let key = format!("{form_key}-{kind}-{id}-{action}");
            let (csrf, kind, id) = (csrf.clone(), kind.clone(), id.clone());
            let chooser = to.map(|people| {
                view! {
                    <label>{t!(language, "desk-assign-to")}
                        <select name="to" required data-testid="assign-to">
                            <option value="">{t!(language, "desk-choose-person")}</option>
                            {people.into_iter().map(|name| view! { <option value=name.clone()>{name.clone()}</option> }).collect_view()}
                        </select>
                    </label>
                }
            });
            view! {
                <ActionForm action=hold attr:class="inline-form" attr:data-holding=action>
                    <input type="hidden" name="csrf" value=csrf/>
                    <input type="hidden" name="key" value=key/>
                    <input type="hidden" name="item_kind" value=kind/>
                    <input type="hidden" name="item_id" value=id/>
                    <input type="hidden" name="action" value=action/>
                    {chooser}
                    <button type="submit" class="button secondary" data-testid=format!("holding-{action}")>{label}</button>
                </ActionForm>
            }
        }
    };
    let status = match (&holding.holder, holding.held_since) {
        (Some(holder), Some(since)) => {
            let words = if holding.mine {
                t!(language, "desk-held-by-you", since = slot(0))
            } else {
                t!(language, "desk-held-by", holder = holder, since = slot(0))
            };
            with_views(words, vec![view! { <Time at=since/> }.into_any()]).into_any()
        }
        _ => t!(language, "desk-unheld").into_any(),
    };
    let assigned = holding.assigned_by.clone().map(|by| {
        view! { <span class="muted">" "{t!(language, "desk-assigned-by", manager = by)}</span> }
    });
    let claim = holding.may_claim.then(|| form("claim", t!(language, "desk-claim"), None));
    let release = holding.may_release.then(|| form("release", t!(language, "desk-release"), None));
    let assign = (!holding.assignable.is_empty())
        .then(|| form("assign", t!(language, "desk-assign"), Some(holding.assignable.clone())));
    view! {
        <section class="panel holding" aria-labelledby="holding-heading" data-testid="holding">
            <h2 id="holding-heading" class="visually-hidden">{t!(language, "desk-heading")}</h2>
            <p data-testid="holder" class:mine=holding.mine>{status}{assigned}</p>
            <div class="row-actions">{claim}{release}{assign}</div>
        </section>
    }
}

/// The notes of one item: each note's latest version with its author and time (the earlier
/// versions folded below it), the viewer's own with a form to edit them, and a form to add one.
/// A note is shown as text: its links as links, its mentions marked; nothing in it is markup.
#[component]
pub fn NotesPanel(notes: NotesView, csrf: String, form_key: String) -> impl IntoView {
    let language = current_language();
    let add = ServerAction::<AddNote>::new();
    let edit = ServerAction::<EditNote>::new();
    let most = crate::domain::note::NOTE_MAX_CHARS.to_string();
    let list = if notes.notes.is_empty() {
        view! { <p class="muted" data-testid="notes-empty">{t!(language, "desk-notes-empty")}</p> }.into_any()
    } else {
        let (csrf, form_key, most) = (csrf.clone(), form_key.clone(), most.clone());
        view! {
            <ol class="notes">
                {notes.notes.into_iter().map(|note| {
                    let by = t!(language, "desk-note-by", author = &note.author, at = slot(0));
                    let by = with_views(by, vec![view! { <Time at=note.at/> }.into_any()]);
                    let version = (note.version > 1).then(|| view! {
                        <span class="muted">" · "{t!(language, "desk-note-version", version = note.version)}</span>
                    });
                    let earlier = (!note.earlier.is_empty()).then(|| view! {
                        <details class="note-earlier">
                            <summary>{t!(language, "desk-note-earlier")}</summary>
                            <ol>{note.earlier.iter().map(|(version, at, body)| view! {
                                <li><p class="muted">{t!(language, "desk-note-version", version = *version)}" · "<Time at=*at/></p>
                                    <p class="note-body">{body.clone()}</p></li>
                            }).collect_view()}</ol>
                        </details>
                    });
                    let (csrf, most, note_id, body) = (csrf.clone(), most.clone(), note.note_id.clone(), note.body.clone());
                    let key = format!("{form_key}-note-{note_id}-{}", note.version);
                    let editor = note.mine.then(move || {
                        view! {
                            <details class="note-edit">
                                <summary>{t!(language, "desk-note-edit")}</summary>
                                <ActionForm action=edit attr:class="note-form">
                                    <input type="hidden" name="csrf" value=csrf/>
                                    <input type="hidden" name="key" value=key/>
                                    <input type="hidden" name="note_id" value=note_id.clone()/>
                                    <label class="visually-hidden" for=format!("edit-{note_id}")>{t!(language, "desk-note-edit")}</label>
                                    <textarea id=format!("edit-{note_id}") name="body" rows="3" maxlength=most required>{textarea_text(&body)}</textarea>
                                    <button type="submit" class="button secondary">{t!(language, "desk-note-save")}</button>
                                </ActionForm>
                            </details>
                        }
                    });
                    view! {
                        <li class="note" data-testid="note" data-note=note.note_id.clone()>
                            <p class="note-body">{note.pieces.into_iter().map(note_piece).collect_view()}</p>
                            <p class="muted note-by">{by}{version}</p>
                            {earlier}
                            {editor}
                        </li>
                    }
                }).collect_view()}
            </ol>
        }.into_any()
    };
    let form = notes.may_write.then(|| {
        let key = format!("{form_key}-note-{}-{}", notes.item_kind, notes.item_id);
        view! {
            <ActionForm action=add attr:class="note-form" attr:data-testid="note-form">
                <input type="hidden" name="csrf" value=csrf.clone()/>
                <input type="hidden" name="key" value=key/>
                <input type="hidden" name="item_kind" value=notes.item_kind.clone()/>
                <input type="hidden" name="item_id" value=notes.item_id.clone()/>
                <label for="new-note">{t!(language, "desk-note-label")}</label>
                <textarea id="new-note" name="body" rows="3" maxlength=most.clone() required aria-describedby="new-note-hint" data-testid="note-body"></textarea>
                <p class="muted" id="new-note-hint">{t!(language, "desk-note-hint")}</p>
                <button type="submit" class="button" data-testid="note-add">{t!(language, "desk-note-add")}</button>
            </ActionForm>
        }
    });
    view! {
        <section class="panel notes-panel" id="notes" aria-labelledby="notes-heading" data-testid="notes">
            <h2 id="notes-heading">{t!(language, "desk-notes-heading")}</h2>
            {list}
            {form}
        </section>
    }
}

/// One piece of a note: text as text, a link as a link that leaves opledger without its address,
/// a mention marked.
fn note_piece(piece: NotePiece) -> AnyView {
    match piece {
        NotePiece::Text(text) => text.into_any(),
        NotePiece::Link(link) => {
            view! { <a href=link.clone() rel="noopener noreferrer nofollow" target="_blank">{link.clone()}</a> }.into_any()
        }
        NotePiece::Mention(name) => view! { <span class="mention">"@"{name}</span> }.into_any(),
    }
}
