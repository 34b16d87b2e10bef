# 每一頁共用的文字：框架、區塊、角色、狀態、時間與錯誤。

skip-to-content = 跳至主要內容
nav-label = 區塊
section-overview = 總覽
section-operations = 操作
section-orders = 訂單
section-conflicts = 衝突
section-approvals = 核准
section-reconcile = 對帳
section-audit = 稽核
section-admin = 管理
approvals-waiting = { $count } 筆待核准
search-label = 搜尋訂單、操作、外部 ID 與人員
search-placeholder = 搜尋（按 /）
sign-out = 登出
language-label = 語言
language-follow-browser = 依瀏覽器設定
language-change = 變更
role-support = 客服
role-manager = 主管
role-auditor = 稽核
role-admin = 管理員

state-planned = 已記錄
state-pending-approval = 待核准
state-approved = 已核准
state-denied = 已駁回
state-submitted = 已送出
state-accepted = 已受理
state-succeeded = 已完成
state-rejected = 遭拒絕
state-unknown = 結果未明
state-needs-review = 待確認
state-cancelled = 已取消

order-status-no-operations = 無操作
order-status-in-progress = 處理中
order-status-pending-confirmation = 待確認
order-status-complete = 已完成
order-status-partial-success = 部分成功
order-status-compensated = 已補償
order-status-failed = 失敗

age-just-now = 剛剛
age-minutes-ago = { $n } 分鐘前
age-hours-ago = { $n } 小時前
age-days-ago = { $n } 天前
age-in-minutes = { $n } 分鐘後
age-in-hours = { $n } 小時後
age-in-days = { $n } 天後
# 完整時間的格式（chrono strftime 語法）。
time-format = %Y/%m/%d %H:%M:%S
date-format = %Y/%m/%d
time-utc = { $time } UTC
time-yours = { $time }（UTC{ $offset }，您的時間）
zone-choice = 完整時間顯示為
zone-yours = 您的時區
zone-utc = UTC
connection-lost = 與伺服器的連線中斷，正在重試。連線恢復後會顯示其他地方的變更。
page-changed = 此頁載入後已有變更。
reload = 重新載入
none = —

error-title-signed-out = 已登出
error-title-forbidden = 無權限
error-title-not-found = 找不到
error-title-invalid = 請檢查輸入內容
error-title-other = 發生錯誤
error-next-sign-in = 登入
error-next-overview = 回到總覽
error-next-operations = 搜尋操作
error-next-try-again = 再試一次
error-unavailable = 伺服器無法連上資料庫，請稍後再試。
error-signed-out = 您已登出，請重新登入後繼續。
error-forbidden = 您的角色無法執行此動作，如有需要請洽管理員。
error-form-expired = 此表單已過期，請重新載入頁面後再試。
error-not-found = 這裡沒有內容：{ $what }。
error-transport = 無法連上伺服器（{ $detail }）。
error-unreadable-request = 無法讀取此請求：有欄位缺漏或格式錯誤。請重新載入頁面後再試。
error-unreachable = 無法連上伺服器，請檢查網路連線後再試。

pager-label = 分頁
pager-first = ← 第一頁
pager-next = 下一頁 →
confirm = 確認
confirm-go-back = 返回
confirm-yes = 是，{ $action }
confirm-question = 要{ $action }嗎？
not-found-title = 找不到頁面
not-found-text = 這個網址沒有頁面。

filter-any = 不限

refusal-own-request = 這是您提出的操作，須由另一位主管決定。
