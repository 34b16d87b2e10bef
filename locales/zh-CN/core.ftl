# 每个页面共用的文字：框架、栏目、角色、状态、时间与错误。

skip-to-content = 跳到主要内容
nav-label = 栏目
section-overview = 概览
section-operations = 操作
section-orders = 订单
section-conflicts = 冲突
section-approvals = 审批
section-reconcile = 对账
section-audit = 审计
section-admin = 管理
approvals-waiting = { $count } 条待审批
search-label = 搜索订单、操作、外部 ID 和人员
search-placeholder = 搜索（按 /）
sign-out = 退出登录
language-label = 语言
language-follow-browser = 跟随浏览器
language-change = 更改
role-support = 客服
role-manager = 主管
role-auditor = 审计
role-admin = 管理员

state-planned = 已记录
state-pending-approval = 待审批
state-approved = 已审批
state-denied = 已驳回
state-submitted = 已提交
state-accepted = 已受理
state-succeeded = 已完成
state-rejected = 被拒绝
state-unknown = 结果未知
state-needs-review = 待确认
state-cancelled = 已取消

order-status-no-operations = 无操作
order-status-in-progress = 处理中
order-status-pending-confirmation = 待确认
order-status-complete = 已完成
order-status-partial-success = 部分成功
order-status-compensated = 已补偿
order-status-failed = 失败

age-just-now = 刚刚
age-minutes-ago = { $n } 分钟前
age-hours-ago = { $n } 小时前
age-days-ago = { $n } 天前
age-in-minutes = { $n } 分钟后
age-in-hours = { $n } 小时后
age-in-days = { $n } 天后
# 完整时间的格式（chrono strftime 语法）。
time-format = %Y-%m-%d %H:%M:%S
date-format = %Y-%m-%d
time-utc = { $time } UTC
time-yours = { $time }（UTC{ $offset }，您的时间）
zone-choice = 完整时间显示为
zone-yours = 您的时区
zone-utc = UTC
connection-lost = 与服务器的连接已断开，正在重试。连接恢复后会显示其他地方的更改。
page-changed = 此页面加载后已有更改。
reload = 重新加载
none = —

error-title-signed-out = 已退出登录
error-title-forbidden = 无权限
error-title-not-found = 未找到
error-title-invalid = 请检查输入
error-title-other = 出错了
error-next-sign-in = 登录
error-next-overview = 返回概览
error-next-operations = 搜索操作
error-next-try-again = 重试
error-unavailable = 服务器无法连接数据库，请稍后再试。
error-signed-out = 您已退出登录，请重新登录后继续。
error-forbidden = 您的角色无权执行此操作，如有需要请联系管理员。
error-form-expired = 此表单已过期，请刷新页面后重试。
error-not-found = 这里没有内容：{ $what }。
error-transport = 无法连接服务器（{ $detail }）。
error-unreadable-request = 无法读取该请求：有字段缺失或格式错误。请刷新页面后重试。
error-unreachable = 无法连接服务器，请检查网络连接后重试。

pager-label = 分页
pager-first = ← 第一页
pager-next = 下一页 →
confirm = 确认
confirm-go-back = 返回
confirm-yes = 是，{ $action }
confirm-question = 确定要{ $action }吗？
not-found-title = 找不到页面
not-found-text = 此地址没有页面。

filter-any = 不限

refusal-own-request = 这是您发起的操作，须由另一位主管决定。
