# 审查页面：冲突、审批队列与对账。

# 冲突：以不同参数复用同一操作 ID 的请求。
conflicts-lede = 以不同参数复用同一操作 ID 的请求。这些请求已被拒绝，没有发送任何内容；已保存的操作保持不变。
conflicts-empty = 目前没有被拒绝的冲突请求。调用方以不同参数复用操作 ID 时，会显示在这里。
# 后接收到请求的时间：“3 分钟前”，页面可交互前则是完整的 UTC 时间。
conflicts-refused-from = 已拒绝 { $who } 的请求，收到于{" "}
conflicts-field = 字段
conflicts-stored = 已保存
conflicts-requested = 请求内容
# 某个字段只出现在其中一组参数里。
conflicts-absent = （无）
conflicts-details = 详情：两组参数的原始记录
conflicts-stored-params = 已保存的参数
conflicts-refused-request = 被拒绝的请求

# 审批队列。$valid_for：现在给出的审批有效多久（“15 min”）。
approvals-lede = 按审批规则需由主管决定的操作，等待最久的排在最前面。审批仅适用于所显示的参数，有效期为 { $valid_for }，批准后会立即发送。
approvals-empty = 目前没有待审批的操作。哪些操作需要审批，可在管理页面设置。
approvals-no-amount = 无金额
# $kind：操作类型（refund）；$provider：发往的服务商。
approvals-kind-at = { $kind }（{ $provider }）
# 后接申请人的名称。
approvals-requested-by = 申请人：
# 后接开始等待的时间：“3 分钟前”。
approvals-waiting-since = 开始等待：
# 后接过期的时间：“3 分钟前”。
approvals-earlier-expired = 此前的审批已过期：
approvals-first-of-order = 这是订单 { $order } 的第一个操作。
# “订单 <订单链接> 目前的操作：”：链接前的文字，以及链接后的文字。
approvals-order-so-far = 订单{" "}
approvals-order-so-far-end = {" "}目前的操作：

# 对账。
reconcile-lede = 结果未知的操作，等待最久的排在最前面。请先向服务商查询，再做其他处理：只有在服务商仍记得幂等键时，重新发送才安全。
reconcile-empty = 没有需要对账的操作：每个已发送的操作都有明确的结果。
reconcile-col-state = 状态
reconcile-col-op-id = 操作 ID
reconcile-col-amount = 金额
reconcile-col-waiting-since = 开始等待
reconcile-col-why = 列入原因
# 这一列说明服务商还会记得幂等键多久。
reconcile-col-key = 幂等键
reconcile-col-actions = 处理
reconcile-none-for-role = 您的角色无权处理
reconcile-more-actions = 更多动作
# 没有更明确的记录时，操作列在对账中的原因。
reconcile-why-no-outcome = 已发送，但未收到结果
# 已成功的操作回到对账台的原因：服务商事后报告失败。$reason 为 wording-reason-* 之一。
reconcile-why-failed-after-success = 服务商先报告完成，之后又报告失败：{ $reason }
