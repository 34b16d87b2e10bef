# 两步验证登录：个人账户页、登录的第二步、人员页的列与重置、登录与访问页的租户开关。

account-title = 你的账户
account-who = 以 { $name } 身份登录租户 { $tenant }。
error-two-factor-first = 你的租户要求你的角色使用两步验证登录。请先在“你的账户”设置；设置完成前无法打开其他页面。
two-factor-go-to-account = 设置两步验证登录
two-factor-heading = 两步验证登录
two-factor-intro = 输入密码后，控制台还会要求手机身份验证器 App（Google Authenticator、Microsoft Authenticator、1Password 等）显示的六位数验证码。即使有人得知你的密码，也无法登录。
two-factor-start = 设置两步验证登录
two-factor-scan = 用身份验证器 App 扫描这个二维码。
two-factor-qr-label = 供身份验证器 App 扫描的二维码
two-factor-type-secret = 或在 App 中输入这串密钥：
two-factor-first-code = App 当前显示的六位数验证码
two-factor-confirm = 开启
two-factor-recovery-once = 两步验证登录已开启。这十个恢复码在你没有手机时各可使用一次。请现在妥善保存：它们只显示这一次。
two-factor-on = { $count ->
   *[other] 你还有 { $count } 个未使用的恢复码。
}
two-factor-state-on = 已开启
two-factor-state-off = 未开启
two-factor-code = App 的验证码或一个恢复码
two-factor-code-hint = 身份验证器 App 的六位数验证码；没有手机时，输入一个恢复码。
two-factor-turn-off = 关闭两步验证登录
two-factor-turned-off = 两步验证登录已关闭。现在只需密码即可登录。
two-factor-must-enrol = 你的租户要求主管与管理员使用两步验证登录。请在这里设置；开启后即可使用其他页面。
two-factor-no-key = 这台服务器没有设置 OPLEDGER_SECRET_KEY，无法保存两步验证登录的密钥。请服务器管理者设置一个（openssl rand -hex 32）并重新启动。
two-factor-refused-sso = 你以公司账户登录：第二重验证由公司的身份提供商负责。
two-factor-already-on = 两步验证登录已经开启。
two-factor-not-on = 两步验证登录尚未开启。
two-factor-not-started = 请重新开始设置：没有等待第一个验证码的密钥。
two-factor-wrong-code = 验证码不正确，或已经用过。请输入 App 当前显示的验证码，或一个未使用的恢复码。
two-factor-required-stays = 你的租户要求你的角色使用两步验证登录，因此无法关闭。丢失手机时，管理员可以为你重置。
two-factor-step-title = 两步验证登录
two-factor-step-for = { $name } 的密码正确。请输入身份验证器 App 的验证码。
two-factor-step-expired = 这次登录等待验证码超过五分钟，或尚未开始。请重新登录。
two-factor-verify = 登录
two-factor-column = 两步验证
two-factor-by-provider = 由身份提供商负责
two-factor-do-reset = 重置两步验证登录（丢失手机）
two-factor-reset-done = { $name } 的两步验证登录已关闭，恢复码也已失效。{ $sessions ->
    [0] 对方没有打开的会话。
   *[other] 对方的 { $sessions } 个会话已结束。
}下次登录后需重新设置。
two-factor-requirement-heading = 两步验证登录
two-factor-required-now-on = 主管与管理员必须使用两步验证登录。
two-factor-required-now-off = 每个人自行决定是否使用两步验证登录。
two-factor-requirement-hint = 开启要求后，未设置的主管或管理员用密码登录后只能进行设置。以公司账户登录的人不受影响：由其身份提供商要求第二重验证。
two-factor-require-on = 要求主管与管理员使用
two-factor-require-off = 不再要求
two-factor-required-on = 主管与管理员现在必须使用两步验证登录。
two-factor-required-off = 已不再要求两步验证登录。
two-factor-switch-unknown = 开关只能是开或关。
