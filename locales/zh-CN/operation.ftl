# 单个操作的页面：当前状况、基本信息、可执行的动作与确认、尝试、外部 ID、审批、补偿与审计日志。

operation-stop-requested = 已请求停止
operation-tell-customer = 告知客户：
operation-kind = 类型
operation-order = 订单
operation-provider = 服务商
operation-amount = 金额
operation-requested-by = 申请人
operation-sent-by = 发送方
operation-provider-offers = 服务商提供的能力
operation-settled-by = 结果确认方式
operation-created = 创建时间
operation-idempotency-key = 幂等键
operation-key-validity = 幂等键在服务商侧的有效期
# 幂等键仍有效的期限；$time 是完整时间，页面可交互后显示为相对时间。
operation-key-until = （至 { $time }）
operation-last-failure = 最近一次失败
operation-conflicting = 冲突的请求
operation-conflicts-refused = 已拒绝 { $count } 条

# 服务商还会记住幂等键多久（operation-key-left），用最大的两个单位表示。
operation-span-seconds = { $s } 秒
operation-span-minutes = { $min } 分钟
operation-span-hours = { $h } 小时
operation-span-hours-minutes = { $h } 小时 { $min } 分钟
operation-span-days = { $d } 天
operation-span-days-hours = { $d } 天 { $h } 小时
operation-key-none = 没有：服务商不接受幂等键，所以绝不会发送两次
operation-key-not-sent = 尚未发送
operation-key-left = 剩余 { $span }
operation-key-expired = 已过期：服务商已不再识别此幂等键

# 由谁发送。$kind 与 $action 是系统名称（refund、create_refund）；$provider 是连接名称。
operation-sender-none = 没有连接器在 { $provider } 执行“{ $kind }”：opledger 从不自行发送。它只记录代理程序上报的内容，结果如何由人员判断。
operation-sender-server-money = 由 opledger 自行发送，作为 { $provider } 的 { $action }：审批策略与双人复核适用于此，也适用于 { $provider } 所记录的、这笔操作涉及的金额。
operation-sender-server = 由 opledger 自行发送，作为 { $provider } 的 { $action }：审批策略与双人复核适用于此。
operation-sender-agent = 由代理程序自行发送：策略要求的审批尚未取得前，opledger 会暂缓发送，并记录代理程序上报的内容、确认结果未知的操作（重新发送时，只会以原本绑定的 { $action } 发送，且不超出策略范围）。未经询问就发送的代理程序，不在 opledger 的控制范围内。

# 接在“这里没有内容：”之后。
operation-not-found = 租户 { $tenant } 中没有操作 { $op_id }
operation-no-such-action = 没有名为“{ $action }”的动作。
operation-executor-only = “{ $action }”由执行器处理，无法从控制台执行。
operation-confirm-first = 请先确认：页面会说明这个动作的后果。

# 将失败的操作重新创建为新的操作。
operation-retry-heading = 重新创建
operation-retry-confirm-heading = 确认：重新创建
operation-reason = 原因
operation-retry-placeholder = 客户提供了新的银行卡
operation-retry-button = 重新创建…
operation-retry-yes = 是，重新创建

operation-actions-heading = 您可执行的动作
operation-actions-none = 无：在此状态下，您的角色没有可执行的动作。
operation-compensate = 补偿
operation-compensate-hint = 补偿是关联到此操作的新操作，有自己的状态：在它完成之前，不能视为已经补偿。

# 操作的各项动作，即按钮上的文字。
operation-action-approve = 批准
operation-action-deny = 驳回
operation-action-expire-approval = 使审批失效
operation-action-send = 发送
operation-action-record-outcome = 记录结果
operation-action-mark-unknown = 标记为结果未知
operation-action-query = 立即向服务商查询
operation-action-resend = 用相同幂等键重新发送
operation-action-escalate = 转交确认
operation-action-mark-succeeded = 标记为已完成
operation-action-mark-not-happened = 标记为未发生
operation-action-cancel = 取消

operation-query-hint = 用操作 ID 向服务商查询此操作；查到即表示已完成。随时都可安全执行。
# $validity 是幂等键还会被识别多久（“剩余 23 小时 12 分钟”）。
operation-resend-hint = 用相同的幂等键再次发送已保存的参数；服务商侧有效期：{ $validity }。
operation-reason-optional = 原因（选填）
operation-reviewer-note = 给确认人员的备注
operation-external-id = 外部 ID
operation-evidence = 证据
operation-evidence-seen = 您在哪里看到的
operation-evidence-nothing = 能证明未发生的依据
operation-new-date = 新日期
# $action 是动作按钮上的文字。
operation-confirm-heading = 确认：{ $action }
operation-nothing-to-confirm = 没有需要确认的动作
operation-nothing-to-confirm-text = 此操作目前无法执行这个动作：它的状态已改变，或您的角色不允许。下方页面会列出您可以执行的动作。

operation-params = 规范化参数
operation-fingerprint = 指纹
operation-timeline = 状态时间线
operation-recorded = 创建

operation-attempts = 尝试
operation-attempts-none = 尚未发送。
operation-started = 开始时间
operation-in-flight-until = 传输中直到
operation-duration = 耗时
operation-milliseconds = { $ms } 毫秒
operation-outcome = 结果
operation-key-sent = 发送的幂等键
operation-error = 错误

operation-external-ids = 外部 ID
operation-external-none = 服务商尚未确认此操作的任何对象。
operation-approval-heading = 审批与补偿
# $granted 与 $expires 是时间。
operation-approved = 由 { $approver } 于 { $granted } 批准，有效期至 { $expires }
operation-approved-other-params = 由 { $approver } 于 { $granted } 批准，有效期至 { $expires }。此审批针对的是其他参数，不涵盖当前参数
operation-approval-none = 没有审批记录。
operation-compensates = 补偿对象：
operation-retry-of = 重新创建自失败的操作：
operation-retried-by = 已重新创建为：
operation-compensated-by = 补偿操作：

operation-audit = 审计日志
operation-audit-seq = 序号
operation-audit-at = 时间
operation-audit-actor = 执行者
operation-audit-action = 动作
operation-audit-change = 变更
operation-audit-reason = 原因与证据
operation-audit-sealing = 封存中…
operation-audit-actor-role = { $actor }（{ $role }）
operation-audit-details = 详情
operation-archived-badge = 已归档
operation-archived = 已归档：此操作于 { $closed } 结束，历史从租户归档中的 { $file } 读取。已无法再对它执行任何操作；同一意图再次发来时，仍会得到这个结果。
