# 操作的通俗说明（src/domain/wording.rs）：操作是什么、对客服来说当前情况如何、
# 可以告诉客户的一句话，以及有风险的操作会带来什么后果。
# 名称（服务商、商品）前后不加空格，因为它们可能是中文也可能是英文；金额前后加空格。

## 客服熟悉的服务商名称（Stripe 和 PayPal 保留原名）。
wording-provider-services = 售后服务系统
wording-provider-email = 邮件服务

## 服务商记住幂等键的时长。
wording-retention-minutes = { $n } 分钟
wording-retention-hours = { $n } 小时
wording-retention-days = { $n } 天

## 服务商如何确认丢失或处理中的响应。$provider 是服务商名称，$window 是上面的保留时长。
wording-settling-key-and-lookup = 丢失的响应会用发送时的操作 ID 向 { $provider } 查询；{ $provider } 会保留幂等键 { $window }，超过之后，未经人工确认不会再重发。
wording-settling-key-only = 无法向 { $provider } 查询这项操作：丢失的响应会用相同的幂等键重发来确认；{ $provider } 会保留幂等键 { $window }，超过之后，未经人工确认不会再重发。
wording-settling-lookup-only = { $provider } 不支持幂等键，因此系统绝不会自动重复发送：丢失的响应会按操作 ID 查询，查不到结果时转交人工处理。
wording-settling-at-most-once = { $provider } 不支持幂等键，也无法查询它做了什么：最多只发送一次，丢失的响应会连同已知情况直接转交人工处理。
# 以下句子接在上一句之后。
wording-settling-5xx-same-key = 发生服务器错误（500 系列状态码）后，{ $provider } 对相同幂等键的重发只会再返回同一个错误，因此这种错误绝不靠重发确认，只能依据 { $provider } 对这项操作的说法或由人工确认。
wording-settling-5xx-retry = 发生服务器错误（500 系列状态码）后，{ $provider } 会重新处理用相同幂等键重发的请求，因此这种错误与丢失的响应一样处理：在幂等键保留期内用相同的幂等键重发。
wording-settling-5xx-unknown = 不确定 { $provider } 在服务器错误（500 系列状态码）后是否会重新处理用相同幂等键重发的请求，因此这种错误绝不靠重发确认，只能依据 { $provider } 对这项操作的说法或由人工确认。
wording-settling-adyen = Adyen 对每笔退款都先回复“received”：是否完成，由它的 REFUND Webhook 告知。
wording-settling-paypal = 状态为 PENDING 的退款会按其 ID 重新读取，直到 PayPal 完成或判定失败。
wording-settling-stripe = 处理中的退款会按其 ID 重新读取，或由 Stripe 的 Webhook 确认，直到成功或失败。
wording-settling-no-payment-read = 由于 { $provider } 无法读取付款信息，可退款余额按商家的订单和本系统记录的退款计算。

## 对客服而言操作是什么。$amount 是金额，$item 是订单商品名称，$kind 是控制台没有对应说法的类型名称。
wording-noun-refund = 退款
wording-noun-refund-amount = { $amount } 退款
wording-noun-refund-item = { $item }的退款
wording-noun-refund-amount-item = { $item }的 { $amount } 退款
wording-noun-aftersale = 售后单
wording-noun-aftersale-item = { $item }的售后单
wording-noun-pickup = 取件
wording-noun-pickup-item = { $item }的取件
wording-noun-email = 发给客户的邮件
wording-noun-email-item = 发给客户、关于{ $item }的邮件
wording-noun-cancel-aftersale = 取消售后单的操作
wording-noun-cancel-aftersale-item = 取消{ $item }售后单的操作
wording-noun-other = “{ $kind }”操作
wording-noun-other-amount = “{ $kind }”操作（{ $amount }）
wording-noun-other-item = { $item }的“{ $kind }”操作
wording-noun-other-amount-item = { $item }的“{ $kind }”操作（{ $amount }）

## 客服不可再做的操作，用于“请勿再次{ $verb }”。
wording-verb-refund = 退款
wording-verb-aftersale = 创建售后单
wording-verb-pickup = 安排取件
wording-verb-email = 发送
wording-verb-cancel-aftersale = 取消
wording-verb-other = 提交

## 向客户说明时的操作名称。
wording-customer-refund = 您的退款
wording-customer-refund-amount = 您的 { $amount } 退款
wording-customer-aftersale = 您的售后申请
wording-customer-pickup = 您商品的取件
wording-customer-email = 发给您的邮件
wording-customer-cancel-aftersale = 您取消售后申请的请求
wording-customer-other = 您的请求（{ $kind }）

## 各状态的说明（status）与要告诉客户的话（customer）。
wording-planned-status = { $noun }已记录，尚未发送到 { $provider }；目前还没有任何动作。
wording-planned-customer = 我们正在处理{ $customer_noun }，稍后会再向您确认。
wording-pending-approval-status = { $noun }正在等待主管审批；尚未发送到 { $provider }。
wording-pending-approval-customer = { $customer_noun }正在由我们的团队审核，批准后会立即通知您。
wording-approved-status = { $noun }已批准，正在等待发送到 { $provider }。
wording-approved-customer = { $customer_noun }已批准，正在处理中。
wording-denied-status = { $noun }已被主管驳回；没有发送到 { $provider }。
wording-denied-customer = 很抱歉，{ $customer_noun }未获批准，我们的同事会向您说明原因。
wording-submitted-status = { $noun }已发送到 { $provider }，对方尚未回复。请勿再次{ $verb }。
# 结果未定时（已提交、结果未知、待确认）告诉客户的话。
wording-checking-customer = 请不要重复申请：{ $customer_noun }正在与 { $provider } 确认中，一有结果我们会立即通知您。
wording-accepted-refund-status = { $provider } 已受理{ $noun }，但银行尚未确认。请勿再次{ $verb }。
wording-accepted-status = { $provider } 已受理{ $noun }，但尚未确认已完成。请勿再次{ $verb }。
wording-accepted-refund-customer = { $customer_noun }正在由银行处理，完成后我们会立即通知您，请不要重复申请。
wording-accepted-customer = { $customer_noun }正在处理中，完成后我们会立即通知您，请不要重复申请。
wording-succeeded-status = { $provider } 已确认{ $noun }完成。这项操作已经完成，请勿再次{ $verb }。
wording-succeeded-refund-customer = { $customer_noun }已完成，款项可能需要几天才会到达您的银行账户。
wording-succeeded-email-customer = { $customer_noun }已发送。
wording-succeeded-customer = { $customer_noun }已完成。
wording-failed-status = { $provider } 已受理{ $noun }，之后却在对方处失败：{ $reason }。没有任何变动；如有需要，可以手动重新发起。
wording-failed-customer = 很抱歉，{ $customer_noun }未能完成：{ $reason }。我们会重新安排，并再通知您。
wording-rejected-status = { $provider } 拒绝了{ $noun }；未做任何处理。
wording-rejected-customer = 很抱歉，{ $customer_noun }未能完成；我们正在了解原因，稍后会回复您。
wording-unknown-status = { $noun }已发送到 { $provider }，但对方未在规定时间内回复；我们正在确认是否已执行。请勿再次{ $verb }。
wording-needs-review-status = { $noun }已发送到 { $provider }，但查询后仍无法确定是否已执行，目前待确认，由对账人员审核中。请勿再次{ $verb }。
# 服务商确认完成后，又报告失败（Adyen 的 REFUND_FAILED）；待专人处理。$reason 为 wording-reason-* 之一。
wording-failed-after-success-status = { $provider } 曾确认{ $noun }完成，之后却报告失败：{ $reason }。目前由专人核实实际结果并处理。请勿再次{ $verb }。
wording-failed-after-success-refund-customer = { $customer_noun }在完成后被支付网络退回；我们的同事正在核实，会再与您联系。
wording-failed-after-success-customer = { $customer_noun }在完成后未能生效；我们的同事正在核实，会再与您联系。
wording-cancelled-status = { $noun }已取消；不会再发送到 { $provider }。
wording-cancelled-customer = { $customer_noun }已取消。
# 发送到不支持幂等键、也无法查询的下游，且响应丢失。
wording-unanswerable-status = { $noun }已交给 { $provider }，但对方无法识别重复的请求，也无法查询它做了什么：没有人能确定是否已送达，系统也不会自动重发。将由人工确认；请勿再次{ $verb }。
wording-unanswerable-customer = 如果您还没收到{ $customer_noun }，请告诉我们：同事正在确认，稍后会回复您。

## 服务商受理后又失败的原因（Stripe 的 failure_reason）。
wording-reason-expired-card = 原本要退回的银行卡已过期或已注销
wording-reason-lost-card = 原本要退回的银行卡已挂失或被盗
wording-reason-declined = 银行拒绝了这笔交易
wording-reason-insufficient-funds = 商家在服务商的余额不足以支付
wording-reason-disputed = 这笔付款在退款处理期间发生了拒付争议
wording-reason-merchant-request = 已应商家要求取消
wording-reason-canceled = 已在服务商处取消
wording-reason-unknown = 服务商未提供原因
# $reason 是服务商自己的代码。
wording-reason-other = 服务商给出的原因是“{ $reason }”

## 有风险的操作在执行前的确认说明。$validity 是服务商还会记住幂等键多久。
wording-consequence-resend = { $noun }会用相同的幂等键（{ $validity }）再次发送到 { $provider }。如果第一次已经送达，{ $provider } 会返回当时的结果，不会重复执行；但幂等键过期后，重发可能会再执行一次。
wording-consequence-cancel = { $noun }不会再发送。如果已经发送，取消并不能撤回。
wording-consequence-mark-not-happened = { $noun }会根据您的说明和证据记录为未完成，且不会发送任何内容。如果 { $provider } 实际上已经执行，账本记录将与客户账户的实际情况不符。
wording-compensation-cancel-ticket = 将在 { $provider } 取消{ $noun }。这会记录为一笔新的操作，并立即发送。
wording-compensation-refund = 将向 { $provider } 发送{ $noun }：客户会拿回这笔款项。这会记录为一笔新的操作，并立即发送。
wording-compensation-reschedule = 将在 { $provider } 按您指定的日期重新安排{ $noun }。这会记录为一笔新的操作，并立即发送。
wording-retry = { $noun }会另外创建一笔新的操作，以它自己的操作 ID 和幂等键发送到 { $provider }，并与这笔操作关联，像其他操作一样经过审批规则检查。请先弄清楚第一次失败的原因，再重新发起。

## 可以记录的补偿（Compensation::label_in）。
wording-compensation-label-cancel-ticket = 取消售后单
wording-compensation-label-refund = 为该商品退款
wording-compensation-label-reschedule = 重新安排取件

## 尝试失败类别的含义（FailureClass::explanation_in）。
wording-failure-not-sent = 请求从未送达服务商；可以放心再次发送。
wording-failure-invalid-params = 服务商拒绝了参数；未做任何处理。
wording-failure-forbidden = 服务商拒绝授权；未做任何处理。
wording-failure-business-rejection = 服务商拒绝了这项请求；未做任何处理。
wording-failure-failed-at-provider = 服务商受理后，在对方处失败；没有任何变动。
wording-failure-transient-unavailable = 服务商繁忙，没有处理这项请求；稍后可用相同的幂等键重试。
wording-failure-timeout = 请求已发送，但没有收到回复：可能已经执行。请勿再次发送，系统正在确认。
wording-failure-server-error = 服务商收到请求后返回了服务器错误：可能已经执行。只有查询才能确定结果。

## 一次发送的结果（尝试的 outcome）。
wording-outcome-succeeded = 成功
wording-outcome-open = 进行中：尚未收到回复
wording-outcome-no-report = 未报告结果：可能已经执行
wording-outcome-timeout = 未在规定时间内回复：可能已经执行
wording-outcome-server-error = 服务商收到后出错：可能已经执行
wording-outcome-not-sent = 未送达服务商
wording-outcome-invalid-params = 被服务商拒绝：参数无效
wording-outcome-forbidden = 被服务商拒绝：没有权限
wording-outcome-business-rejection = 服务商拒绝
wording-outcome-accepted = 已受理：服务商已收到，结果待定
wording-outcome-failed-at-provider = 已受理，之后在服务商处失败：没有任何变动
wording-outcome-transient-unavailable = 服务商繁忙，未处理这次请求
wording-settling-lookup-by-list = { $provider } 不接受幂等键，所以任何请求都不会发送两次：发送前先列出这笔付款的退款，响应丢失时再列一次，找出金额相同且是新出现的那一笔退款；超过网关的延迟仍找不到，就连同两次列表交给人员判断。
wording-settling-ecpay = 绿界先受理退款，于每晚关账（台湾时间 20:15）时完成；20:15 至 20:30 之间不发送退款。
wording-held-status = { $noun }已记录但尚未发送：{ $provider } 此刻无法受理（每晚关账时段、调用次数限制，或无法读取其记录）。没有任何请求发出；{ $provider } 可以受理时会自动发送。请勿再次{ $verb }。
wording-held-customer = { $customer_noun }已记录，稍后就会发出，完成后我们会向您确认。
