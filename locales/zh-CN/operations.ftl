# 操作列表：筛选条件、表格、导出，以及输入有误时的说明。

operations-title = 操作
operations-live-on = ● 实时：变更发生时立即显示
operations-live-off = 显示加载时的列表
operations-filters = 筛选
operations-filter-label = 筛选操作
operations-state = 状态
operations-kind = 类型
operations-provider = 服务商
operations-order = 订单
operations-from = 起（UTC）
operations-to = 止（UTC）
operations-search = 操作 ID 或外部 ID
operations-apply = 应用
operations-clear = 清除
operations-bulk = 批量查询这些操作…
operations-export-csv = 导出 CSV
operations-export-jsonl = 导出 JSON Lines
operations-empty-filtered = 没有符合这些筛选条件的操作。请放宽条件，或清除筛选以查看所有操作。
operations-empty = 暂无操作。代理程序会在发送操作前，先通过账本 API 记录。
operations-op-id = 操作 ID
operations-amount = 金额
operations-attempts = 尝试
operations-external-ids = 外部 ID
operations-created = 创建时间
operations-held = 处理人
operations-held-by = 处理人
operations-held-anyone = 不限
operations-held-mine = 我
operations-held-nobody = 无人处理
operations-held-none = —

# 用文字说明筛选条件，例如批量操作重述时：“状态 unknown、订单 order:1077”。
operations-describe-state = 状态 { $value }
operations-describe-kind = 类型 { $value }
operations-describe-provider = 服务商 { $value }
operations-describe-order = 订单 { $value }
operations-describe-search = 操作 ID 或外部 ID { $value }
operations-describe-from = 创建时间自 { $value } 起
operations-describe-to = 创建时间早于 { $value }
operations-describe-held-mine = 由我处理
operations-describe-held-nobody = 无人处理
operations-describe-held-by = 由 { $value } 处理
operations-describe-separator = 、
operations-describe-all = 所有操作

# $field 是表单字段名称（from、to）。
operations-not-a-time = { $field } 字段中的“{ $text }”不是时间，请写成 2026-11-30 或 2026-11-30T14:05（UTC）。
operations-damaged-link = 此分页链接已损坏，请返回第一页。
operations-no-such-state = 没有名为“{ $state }”的状态。
