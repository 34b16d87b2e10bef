# 概览：各状态的数量、等待人工处理的事项，以及两张图表。

overview-empty-title = 暂无操作
overview-empty-text = 代理和工具在发送每项操作前，会先通过账本 API 记录（{ $api }）。运行 { $command } 即可用演示数据查看控制台。
overview-empty-api = API 说明
overview-cards-label = 各状态的操作
overview-all = 全部
overview-hourly-title = 每小时操作数（最近 24 小时）
overview-settle-title = 从结果未知到确定的时间（最近 7 天）
overview-settle-label = 已确定的操作，按耗时
overview-settle-empty = 最近 7 天没有操作从结果未知变为确定。
overview-unknown-title = 结果未知的操作，按时长（{ $count }）
overview-unknown-label = 结果未知的操作，按时长
overview-unknown-empty = 没有结果未知的操作：每项已发送的操作都有确定的结果。
overview-sample-note = 仅统计结果未知最久的 { $count } 条。
overview-waiting-title = 等待人工处理
overview-pending-approval = { $count } 条待审批
overview-needs-review = { $count } 条待确认
overview-needs-review-empty = 没有待确认的操作。
overview-attention-title = 部分成功或待确认的订单
overview-attention-empty = 所有订单均已完成、已补偿，或已失败且无遗留。
# 接在简短列表中操作金额之后；$time 是最后变更的时间（“3 分钟前”）。
overview-changed = 最后更新：{ $time }
overview-order = 订单
overview-order-status = 状态
overview-order-operations = 操作
overview-order-net-refunded = 净退款
overview-order-last-change = 最后变更

# 每小时操作数图表。$hour 的样式如“14:00 UTC”。
overview-hour-title = { $hour }：已完成 { $succeeded }，未执行 { $not_done }，未确定 { $uncertain }，尚未发送 { $open }
overview-hourly-label = 每小时创建的操作，按结果区分；最多的一小时有 { $most } 条
overview-legend-succeeded = 已完成
overview-legend-not-done = 未执行
overview-legend-uncertain = 未确定
overview-legend-not-sent = 尚未发送
overview-legend-utc = （时间为 UTC）

# 另两张图表的条形标签（请保持简短：显示在条形旁）。
overview-bucket-under-1-min = 1 分钟内
overview-bucket-under-5-min = 5 分钟内
overview-bucket-1-5-min = 1–5 分钟
overview-bucket-5-30-min = 5–30 分钟
overview-bucket-30-min-2-h = 30 分钟–2 小时
overview-bucket-over-2-h = 超过 2 小时
overview-bucket-2-24-h = 2–24 小时
overview-bucket-over-a-day = 超过 1 天
