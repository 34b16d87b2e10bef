# 管理页：用户及其语言、客户语言、审批策略、服务商账户、客户邮件模板与 Webhook；
# 以及一次性表单的拒绝信息。

## 用户

admin-users-heading = 本租户的用户
admin-user-name = 用户名
admin-user-role = 角色
admin-users-added = 添加时间
admin-user-language = 语言
admin-user-language-of = { $name } 的控制台语言
admin-users-language-hint = 用户下次登录后才会看到新的控制台语言。“跟随浏览器”会使用其浏览器请求的语言。
admin-add-user-heading = 添加用户
admin-add-user-password = 密码（至少 10 个字符）
admin-add-user-submit = 添加用户
admin-user-added = { $name } 现在可以以{ $role }身份登录。
admin-user-added-in = { $name } 现在可以以{ $role }身份登录，控制台语言为{ $language }。
admin-user-role-unknown = 没有名为“{ $role }”的角色。
admin-user-name-invalid = 用户名须为 1 到 64 个字符，只能使用英文字母、数字、“.”、“-”、“_”或“@”。
admin-user-password-weak = 密码至少需要 { $min } 个字符。
admin-user-name-taken = 本租户已有名为 { $name } 的用户。
admin-user-not-found = 本租户没有名为 { $name } 的用户
admin-user-language-saved = 从下次登录起，{ $name } 的控制台将以{ $language }显示。
admin-user-language-browser = 从下次登录起，{ $name } 的控制台将按其浏览器请求的语言显示。

## 语言

admin-languages-heading = 语言
admin-tenant-language = 客户语言
admin-tenant-language-hint = 智能体调用工具时如未指定 { $locale }，工具会以此语言告知客户。
admin-tenant-language-save = 保存语言
admin-tenant-language-saved = 调用未指定 locale 时，现在会以{ $language }告知客户。
admin-language-choose = 请选择语言。
admin-language-unknown = “{ $tag }”不是控制台支持的语言：请选择 English、繁體中文或简体中文。

## 审批策略

admin-policy-heading = 审批策略
admin-policy-intro = 从现在起登记且符合规则的操作，会先等待主管审批后才发送。金额门槛只适用于同一币种的金额。
# 规则的文字。kind_scope 为 "any" 表示任意类型，provider_scope 为 "any" 表示任意服务商，
# amount_scope 为 "any" 表示任意金额。
admin-rule-sentence =
    { $kind_scope ->
        [any] 任意类型的操作
       *[one] { $kind } 操作
    }{ $provider_scope ->
        [any] {""}
       *[one] （服务商 { $provider }）
    }{ $amount_scope ->
        [any] {""}
       *[from] 金额达到 { $threshold } 及以上时
    }需经主管审批
admin-rule-added-by = （{ $name } 添加于 { $time }）
admin-rule-remove = 删除…
admin-rule-remove-consequence = 将删除规则“{ $rule }”：从现在起登记、原本会被此规则拦下的操作，将不经主管审批直接发送。
admin-rule-confirm-heading = 确认：删除此规则
admin-rule-confirm-yes = 是，删除
admin-rules-empty = 没有规则：所有操作都无需审批即发送。请在下方添加规则。
admin-rule-kind = 类型
admin-rule-kind-choose = 请选择…
admin-rule-kind-any = 任意类型
admin-rule-provider = 服务商
admin-rule-provider-any = 任意服务商
admin-rule-threshold = 起始金额（留空表示任意金额）
admin-rule-currency = 币种
admin-rule-amount-hint = 以该币种的主单位填写，小数点后为分：1000.00 或 1,000.00。
admin-rule-preview-button = 预览
admin-rule-add = 添加规则
admin-rule-kind-missing = 请选择类型，例如 { $kinds }。
admin-rule-kind-unknown = 没有记录过、工具也不会产生类型为“{ $kind }”的操作；请从 { $kinds } 中选择。
admin-rule-provider-unknown = 没有名为“{ $provider }”的服务商；请从 { $providers } 中选择，或留空表示任意服务商。
admin-rule-amount-missing = 指定币种时也需填写金额，例如 1000.00。
admin-rule-currency-missing = 金额门槛需要指定币种，例如 TWD。
admin-rule-currency-invalid = 币种须为三个字母的 ISO 4217 代码，例如“TWD”，收到的是“{ $code }”。
admin-rule-amount-invalid = “{ $amount }”不是有效的 { $currency } 金额；请写成 { $example } 的形式。
admin-rule-amount-invalid-comma = “{ $amount }”不是有效的 { $currency } 金额；请写成 { $example } 的形式。逗号只能用来分隔千位（1,000.00），分的部分请写在小数点之后。
admin-rule-amount-too-large = 金额过大。
admin-rule-caught-none =
    目前还没有记录任何{ $kind_scope ->
        [any] 操作
       *[one] {" "}{ $kind } 操作
    }，因此至今不会拦下任何操作。
admin-rule-caught =
    最近 { $total } 条{ $kind_scope ->
        [any] 操作
       *[one] {" "}{ $kind } 操作
    }中（自 { $since } 起），此规则会拦下 { $caught } 条。
admin-rule-preview = 预览，未保存：{ $rule }。{ $caught }
admin-rule-added = 从现在起，{ $rule }。{ $caught }
admin-rule-removed = 规则已删除；从现在起登记的操作不再需要它的审批。
admin-rule-not-found = 没有审批规则 { $id }

## 服务商账户

admin-accounts-heading = 服务商账户
admin-accounts-intro = 本租户自己的账户：退款发往 { $stripe }、{ $adyen } 或 { $paypal }，店铺订单读取自 { $orders }，售后单与取件发往 { $sandbox }，客户邮件发往 { $email }（类型为 email 或 smtp，账户即发件人），店铺自有系统提供的任何服务（类型 http）也都发往这些账户。没有账户时，只有运维方授予服务器自有账户的租户（{ $flag }）才能发送任何操作。基础 URL 必须是公开的 https 地址，除非运维方另有允许。密钥保存时即加密封存，之后不再显示，只显示最后四个字符。
admin-accounts-empty = 还没有自己的账户：请在下方添加。在此之前，除非运维方授予服务器自有的账户，本租户不会发送任何操作。
admin-accounts-provider = 服务商
admin-accounts-kind = 类型
admin-accounts-base-url = 基础 URL
admin-accounts-col-secret = 密钥
admin-accounts-retention = 幂等键保留期限
admin-accounts-col-set = 最后设置
admin-accounts-col-webhooks = 服务商的 Webhook
admin-accounts-col-actions = 动作
admin-accounts-account-named = 账户
admin-accounts-webhook-own-secret = 绿界以这个连接的 HashKey 与 HashIV 签署付款通知：把这个网址填为订单的 ReturnURL（并设 NeedExtraPaidInfo=Y），每笔信用卡付款的 TradeNo 与 gwsr 就会保存下来供退款使用。
admin-accounts-webhook-secret-set = 已设置签名密钥：其事件会确定已受理操作的结果。
admin-accounts-webhook-secret-missing = 尚未设置签名密钥：设置之前，其事件一律拒收。
admin-accounts-save-secret = 保存密钥
admin-accounts-remove = 删除
admin-accounts-secret-key = 密钥
admin-accounts-account = 账户
admin-accounts-account-placeholder = 商户账户或 client id
admin-accounts-retention-placeholder = 服务商的默认期限
admin-accounts-account-hint = Adyen 需填商户账户（merchant account），PayPal 需填 REST 应用的 client id（其 secret 即为密钥），绿界需填 MerchantID（密钥为厂商后台的 HashKey:HashIV:CreditCheckCode），LINE Pay 需填 Channel ID（密钥为 Channel Secret），email 与 smtp 需填发件人（Shop <support@shop.example>；smtp 的基础 URL 为 smtp://host:587 或 smtps://host:465）；Stripe 与其他服务商无需填写。只有当账户合同与服务商的默认期限不同时，才需设置幂等键保留多久（7d、48h）：Stripe 为 24 小时，Adyen 为 31 天，PayPal 为 45 天。
admin-accounts-description = API 描述（用于 http 连接）
admin-accounts-description-hint = 适用于店铺自有的系统（类型 http）：它提供的操作类型、每种操作如何用操作保存的参数构造请求、它支持的幂等键请求头（如有），以及它的查询方式（如有）。它支持哪些机制，决定了 opledger 如何处理丢失的响应；两者都不支持的系统，操作最多只发送一次。docs/any-downstream.md 中有示例。
admin-accounts-save = 保存账户
admin-accounts-retention-per-kind = 按操作类型而定
admin-accounts-retention-window = { $window }（服务商的默认期限）
admin-serves-key-and-lookup = { $kind }：幂等键保留 { $window }，{ $after_5xx }，可查询
admin-serves-key-only = { $kind }：幂等键保留 { $window }，{ $after_5xx }，不可查询
admin-serves-lookup-only = { $kind }：无幂等键，可查询
admin-serves-at-most-once = { $kind }：无幂等键、不可查询：最多发送一次
admin-serves-5xx-same-key = 5xx 后重发只会再得到 5xx
admin-serves-5xx-retry = 5xx 后会用同一幂等键重发
admin-serves-5xx-unknown = 5xx 后不重发（不确定是否会重新处理）
admin-accounts-secret-hmac = HMAC 密钥
admin-accounts-secret-webhook-id = Webhook ID
admin-accounts-secret-signing = 签名密钥
admin-accounts-webhook-secret-saved = 已保存：{ $name } 的 Webhook 现在用此签名密钥验证。
admin-accounts-not-found = 没有到 { $name } 的连接
admin-accounts-kind-unknown = 没有“{ $kind }”这种服务商类型。
admin-accounts-retention-invalid = “{ $text }”不是时间长度：请写成 24h、7d 或 45days。
admin-accounts-saved = 在 { $name } 的操作现在会发往本租户自己的账户。
admin-accounts-removed = 已删除：在 { $name } 的操作现在改用服务器的连接（如有）。

## Webhook

admin-webhooks-heading = Webhook
admin-webhooks-intro = 其他系统（聊天频道、店铺后端）可实时得知变更：每个事件都经过签名（Standard Webhooks），至少送达一次，同一操作的事件按顺序发送；端点未返回 2xx 时，会在数小时内以逐渐拉长的间隔重试。
admin-webhooks-need-key = 端点需要签名密钥，服务器会用其密钥加密封存：请设置 { $variable } 后启动服务器（例如用 { $command } 生成），即可添加端点。
admin-webhooks-empty = 没有端点：操作变更时不会发送任何通知。请在下方添加。
admin-webhook-deliveries-caption = 最近发往 { $url } 的事件
admin-webhook-added-by = { $name } 添加于 { $time }
admin-webhook-every-event = 所有事件
admin-webhook-remove = 删除…
admin-webhook-remove-consequence = 将删除端点 { $url }，连同尚未送达的事件：它将不再收到任何事件。
admin-webhook-deliveries-empty = 尚未发送任何事件：操作变更时就会发送。
admin-delivery-event = 事件
admin-delivery-about = 对象
admin-delivery-status = 状态
admin-delivery-attempts = 尝试次数
admin-delivery-last-answer = 最后响应
admin-delivery-created = 创建时间
admin-delivery-actions = 动作
admin-delivery-pending = 待发送
admin-delivery-delivered = 已送达
admin-delivery-failed = 已放弃
admin-delivery-next = { $status }，下次 { $time }
admin-webhook-resend = 重新发送
admin-webhook-url = URL
admin-webhook-events = 事件
admin-webhook-add = 添加端点
admin-webhook-remove-unconfirmed = 未删除任何内容：请确认删除（这会丢弃尚未送达该端点的事件）。
admin-delivery-answered = 返回 { $status }
admin-webhook-added = 已添加。其签名密钥仅显示这一次（请用它验证 webhook-signature 请求头）：{ $secret }
admin-webhook-removed = 已删除：不会再向该端点发送任何事件。
admin-webhook-not-found = 没有 Webhook 端点 { $id }
admin-delivery-not-found = 没有 Webhook 发送记录 { $id }
admin-delivery-resent = 几秒内会从第一次尝试开始重新发送。
admin-delivery-still-sending = 仍在发送中：请等待下一次尝试，或等到它被放弃。

## 一次性表单（各页面的变更表单）

admin-request-key-invalid = 此表单没有有效的请求键；请刷新页面。
admin-request-in-progress = 此请求正在处理中；完成后会显示结果。
admin-request-other = 此表单已用于另一个请求；请刷新页面。

## 客户邮件模板

templates-heading = 客户邮件
templates-intro = 智能体可以就订单写给客户的内容（{ $tool } 工具），通过本租户的邮件账户（类型 email 或 smtp）发送。每封邮件在发送前都会连同正文一并记录，且只发送一次；通过 SMTP 发送时，由于 SMTP 既无法识别重复、也无法查询，响应丢失的邮件会留待人工处理。
templates-name = 名称
templates-subject = 主题
templates-subject-example = 您的订单 {"{"}order{"}"} 的退款
templates-body = 正文（纯文本）
templates-placeholders = 可用的占位符：{ $placeholders }。
templates-save = 保存模板
templates-empty = 还没有模板：请在下方添加，智能体即可发送给订单的客户。
templates-col-text = 主题与正文
templates-col-set = 最后设置
templates-col-actions = 动作
templates-remove = 删除
templates-saved = 已保存：智能体现在可以向客户发送“{ $name }”。
templates-removed = 已删除模板“{ $name }”。
templates-not-found = 没有模板 { $name }
