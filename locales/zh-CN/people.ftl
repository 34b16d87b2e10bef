# 管理页的导航、人员页、登录与访问页，以及密码重置链接打开的页面。

admin-nav-label = 管理页面
admin-tab-people = 人员
admin-tab-access = 登录与访问
admin-tab-providers = 服务商账户
admin-tab-policy = 审批策略
admin-tab-webhooks = Webhook

people-intro = 所有登录此租户控制台的人。停用的人无法登录；他们的会话会立即在每台服务器上结束，而每条审计记录仍归属于他们。
people-status = 状态
people-source = 登录方式
people-last-sign-in = 上次登录
people-change = 变更
people-status-active = 启用中
people-status-deactivated = 已停用
people-source-local = 密码
people-source-sso = 公司账号
people-you = （你）
people-never = 从未
people-change-open = 变更…
people-change-of = 变更 { $name }
people-change-what = 要做什么
people-do-role = 分配新角色
people-do-sign-out = 在所有设备退出登录
people-do-reset = 生成密码设置链接
people-do-deactivate = 停用
people-do-reactivate = 重新启用
people-new-role = 新角色
people-reason = 原因（记入审计记录）
people-reason-example = 例如：调到财务组
people-apply = 应用
people-change-unknown = “{ $change }”不是控制台能对人员做的变更。
people-reason-needed = 请填写一行、最多 500 字的原因：它会记入审计记录。
people-refused-own-role = 你不能更改自己的角色，请另一位管理员处理。
people-refused-own-deactivation = 你不能停用自己，请另一位管理员处理。
people-refused-last-admin = 这是此租户最后一位启用中的管理员。请先让另一个人成为管理员。
people-refused-password-elsewhere = 此人使用公司账号登录，密码由公司的身份提供方保管。
people-refused-deactivated = 此人已停用，请先重新启用。
people-role-set = { $name } 现在是{ $role }。{ $sessions ->
    [0] 他没有打开的会话。
   *[other] 他的 { $sessions } 个会话已结束；他需以新角色重新登录。
}
people-deactivated = { $name } 已停用，无法登录。{ $sessions ->
    [0] 他没有打开的会话。
   *[other] 他的 { $sessions } 个会话已结束。
}
people-reactivated = { $name } 已重新启用，可以登录。
people-signed-out = { $sessions ->
    [0] { $name } 没有打开的会话。
   *[other] { $name } 的 { $sessions } 个会话已结束。
}
people-reset-made = 请私下把这个链接交给 { $name }：{ $link } 它可在 { $minutes } 分钟内设置一次新密码，只在此时显示。

people-refused-role-from-groups = 此人的角色来自他在身份提供方的群组，每次登录都会重新读取。请在那里更改他的群组，或在这里停用他。
people-refused-token-heir = API 令牌只能交给此租户另一位启用中的用户。
people-tokens-revoked = { $count ->
    [0] 他没有创建过 API 令牌。
   *[other] 他创建的 { $count } 个 API 令牌已撤销。
}
people-tokens-reassigned = 他创建的 { $count } 个 API 令牌现在归 { $heir }。
people-tokens-to = 他的 API 令牌交给
people-tokens-to-none = 没有人：撤销它们

access-sessions-heading = 控制台会话
access-sessions-lifetimes = 会话在 { $idle } 分钟没有请求后结束，且无论如何在登录 { $absolute } 小时后结束。
access-sessions-flags = 这些由服务器启动时设置：{ $idle } 和 { $max }。
access-leaving = 有人离职时，请在“人员”页停用他：他的会话会立即在每台服务器上结束，且无法再登录。

reset-title = 设置新密码
reset-for = 给 { $name }。请输入新密码两次。
reset-new-password = 新密码（至少 10 个字符）
reset-new-password-again = 再输入一次
reset-submit = 设置密码
reset-hint = 此链接只能使用一次。旧密码将失效，打开的会话会结束。
reset-problem-mismatch = 两次输入的密码不同，请输入相同的密码。
reset-problem-weak = 密码至少需要 10 个字符。
reset-link-dead = 此链接已失效：已使用、已过期，或从未生成。请向租户的管理员索取新的链接。
reset-to-sign-in = 前往登录
login-password-set = 新密码已设置，请用它登录。
