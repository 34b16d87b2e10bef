# 向服务商批量查询：预览、执行进度与结果。

bulk-title = 批量查询
bulk-heading = 向服务商批量查询
# $matching 和 $actionable 是数量（加粗显示）；$n 与 $matching 为同一个数字。
bulk-preview-counts = { $n ->
   *[other] 共 { $matching } 条操作符合筛选条件：{ $filter }。其中 { $actionable } 条现在可以查询（结果未知、待确认，或已提交但没有回音的操作）。
}
bulk-preview-counts-capped = 共 { $matching } 条操作符合筛选条件：{ $filter }（只统计前 { $limit } 条；请缩小筛选范围以覆盖其余操作）。其中 { $actionable } 条现在可以查询（结果未知、待确认，或已提交但没有回音的操作）。
bulk-preview-how = 每一条都会按操作 ID 向其服务商查询。查到即视为已完成，并以查询结果作为证据；查不到则不做任何变更。不会发送任何操作。
bulk-nothing-to-do = 没有需要查询的操作。请到{ $list }更改筛选条件。
bulk-operations-list = 操作列表
bulk-confirm = 查询 { $count } 条操作
bulk-cancel = 取消
# $who 是人名，$time 是开始时间，$filter 是用文字描述的筛选条件（链接）。
bulk-run-started = 由 { $who } 于 { $time } 发起向服务商查询，范围：{ $filter }。
bulk-progress-label = 已查询的操作
bulk-running = 已完成 { $done } / { $total }…
# $summary 即 bulk-summary。
bulk-done = 已完成：{ $done } / { $total }，完成于 { $time }。{ $summary }
bulk-summary = 已确认 { $confirmed } 条，未找到 { $not_found } 条，无法查询 { $unavailable } 条，被拒绝 { $refused } 条。
bulk-results = 结果
bulk-col-op-id = 操作 ID
bulk-col-result = 结果
bulk-col-what-happened = 处理情况
bulk-outcome-waiting = 等待中
bulk-outcome-confirmed = 已确认
bulk-outcome-not-found = 未找到
bulk-outcome-unavailable = 无法查询
bulk-outcome-refused = 被拒绝
bulk-damaged-filter = 筛选条件已损坏，请从操作列表重新开始。
bulk-nothing-started = 此筛选显示的操作目前都无法查询，未发起任何查询。
# 显示为“这里没有内容：…”。
bulk-run-not-found = 批量查询 { $id } 不存在

# 搜索页（页头搜索框的文字在 core.ftl）。
search-page-title = 搜索
search-page-how = 在上方搜索框输入订单号（1043 或 #1043）、操作 ID（refund-1043）、外部 ID（re_…）或人名的开头，然后按 Enter。在任何页面按 / 都能跳到搜索框。
search-page-nothing = 没有以“{ $words }”开头的结果。请按开头搜索：订单号、操作 ID、外部 ID 或人名。若要按状态、类型或时间筛选，请使用{ $list }。
search-page-operations-list = 操作列表
search-page-searched = 以“{ $words }”开头的结果：
search-page-people = 人员
search-page-in-audit = （其在审计日志中的操作记录）
search-page-external-id = 外部 ID
search-page-too-long = 搜索内容最多 { $longest } 个字符，可以是订单、操作 ID、外部 ID 或人名。
search-page-archived = 已归档
