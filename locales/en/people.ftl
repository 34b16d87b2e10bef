# The admin pages' navigation, the people page, the sign-in and access page, and the page a
# password reset link opens.

admin-nav-label = Admin pages
admin-tab-people = People
admin-tab-access = Sign-in and access
admin-tab-providers = Provider accounts
admin-tab-policy = Policy
admin-tab-webhooks = Webhooks

people-intro = Everyone who signs in to this tenant's console. A deactivated person cannot sign in; their sessions end at once on every server, and every audit entry stays theirs.
people-status = Status
people-source = Signs in with
people-last-sign-in = Last sign-in
people-change = Change
people-status-active = Active
people-status-deactivated = Deactivated
people-source-local = Password
people-source-sso = Company account
people-you = (you)
people-never = never
people-change-open = Change…
people-change-of = Change { $name }
people-change-what = What
people-do-role = Give a new role
people-do-sign-out = Sign out everywhere
people-do-reset = Make a password link
people-do-deactivate = Deactivate
people-do-reactivate = Reactivate
people-new-role = New role
people-reason = Reason (kept in the audit trail)
people-reason-example = for example: moved to the finance team
people-apply = Apply
people-change-unknown = “{ $change }” is not a change the console makes to a person.
people-reason-needed = Give a reason of one line, at most 500 characters: it is kept in the audit trail.
people-refused-own-role = You cannot change your own role. Ask another admin.
people-refused-own-deactivation = You cannot deactivate yourself. Ask another admin.
people-refused-last-admin = This is the tenant's last active admin. Make someone else an admin first.
people-refused-password-elsewhere = This person signs in with their company account; their password is kept there.
people-refused-deactivated = This person is deactivated. Reactivate them first.
people-role-set = { $name } is now { $role }. { $sessions ->
    [0] They had no open session.
    [one] Their open session ended; they sign in again with the new role.
   *[other] Their { $sessions } open sessions ended; they sign in again with the new role.
}
people-deactivated = { $name } is deactivated and cannot sign in. { $sessions ->
    [0] They had no open session.
    [one] Their open session ended.
   *[other] Their { $sessions } open sessions ended.
}
people-reactivated = { $name } is active again and can sign in.
people-signed-out = { $sessions ->
    [0] { $name } had no open session.
    [one] { $name }'s open session ended.
   *[other] { $name }'s { $sessions } open sessions ended.
}
people-reset-made = Give { $name } this link, privately: { $link } It sets a new password once, within { $minutes } minutes. It is shown only now.

people-refused-role-from-groups = This person's role comes from their groups at your identity provider, read again at every sign-in. Change their groups there, or deactivate them here.
people-refused-token-heir = The API tokens can only go to another active user of this tenant.
people-tokens-revoked = { $count ->
    [0] They had made no API token.
    [one] The API token they made is revoked.
   *[other] The { $count } API tokens they made are revoked.
}
people-tokens-reassigned = { $count ->
    [one] The API token they made now belongs to { $heir }.
   *[other] The { $count } API tokens they made now belong to { $heir }.
}
people-tokens-to = Their API tokens go to
people-tokens-to-none = nobody: revoke them

access-sessions-heading = Console sessions
access-sessions-lifetimes = A session ends after { $idle } minutes without a request, and { $absolute } hours after sign-in in any case.
access-sessions-flags = The server sets these when it starts: { $idle } and { $max }.
access-leaving = When someone leaves, deactivate them on the People page: their sessions end at once on every server, and they cannot sign in again.

reset-title = Set a new password
reset-for = For { $name }. Type the new password twice.
reset-new-password = New password (at least 10 characters)
reset-new-password-again = The same password again
reset-submit = Set the password
reset-hint = The link works once. Signing in elsewhere with the old password stops working, and open sessions end.
reset-problem-mismatch = The two passwords differ. Type the same one twice.
reset-problem-weak = A password needs at least 10 characters.
reset-link-dead = This link no longer works: it was used, it expired, or it was never made. Ask an admin of your tenant for a new one.
reset-to-sign-in = Go to sign-in
login-password-set = Your new password is set. Sign in with it.
