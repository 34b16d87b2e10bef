# 审计页：租户的审计事件、筛选与导出。

audit-lede = 此租户的每一次状态变更和每一个动作，最新的在前。每条事件都通过哈希与前一条串联，导出的记录可用 { $command } 离线校验。
audit-partial-note = 此筛选会排除部分事件：导出后只能逐条校验事件的哈希（{ $command }），无法校验整条链。若要导出可完整校验的链，请清除结束时间以外的所有筛选条件。
audit-filter-label = 筛选审计事件
audit-filter-from = 开始时间（UTC）
audit-filter-to = 结束时间（UTC）
audit-filter-actor = 执行人
audit-filter-action = 动作
audit-filter-op-id = 操作 ID
audit-filter-order = 订单
audit-apply = 应用
audit-clear = 清除
audit-export-csv = 导出 CSV
audit-export-jsonl = 导出 JSON Lines
audit-empty = 暂无事件：每项操作及其上的每个动作都会记录在这里。
audit-empty-filtered = 没有符合这些筛选条件的事件。请放宽条件，或清除筛选以查看全部事件。
audit-col-seq = 序号
audit-col-at = 时间
audit-col-actor = 执行人
audit-col-action = 动作
audit-col-operation = 操作
audit-col-change = 变更
audit-col-reason = 原因与证据
audit-col-hash = 哈希
# $role 是执行人的角色名称（客服、主管…）。
audit-actor = { $actor }（{ $role }）
audit-evidence = 证据
audit-newest = ← 最新事件
audit-older = 更早的事件 →
audit-damaged-link = 页面链接已损坏，请回到第一页。

# 动作筛选提供的动作（事件本身显示记录下来的代码）。
audit-action-approve = 批准
audit-action-deny = 驳回
audit-action-expire-approval = 审批过期
audit-action-begin-attempt = 开始尝试
audit-action-record-outcome = 记录结果
audit-action-mark-unknown = 标记为结果未知
audit-action-confirm-found = 确认已找到
audit-action-resend-same-key = 以相同幂等键重发
audit-action-escalate = 转人工确认
audit-action-mark-succeeded = 标记为已完成
audit-action-mark-not-happened = 标记为未发生
audit-action-cancel = 取消
audit-action-register = 登记
audit-action-refuse-conflict = 拒绝冲突请求
audit-action-add-user = 添加用户
audit-action-create-api-token = 创建 API 令牌
audit-action-revoke-api-token = 吊销 API 令牌
audit-action-add-approval-rule = 添加审批规则
audit-action-remove-approval-rule = 删除审批规则
audit-action-set-provider-connection = 设置服务商连接
audit-action-set-provider-webhook-secret = 设置服务商 Webhook 密钥
audit-action-remove-provider-connection = 删除服务商连接
audit-action-set-email-template = 设置邮件模板
audit-action-remove-email-template = 删除邮件模板
