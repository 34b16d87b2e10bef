# 稽核頁：租戶的稽核事件、篩選與匯出。

audit-lede = 此租戶的每一次狀態變更與每一個動作，最新的在前。每筆事件都以雜湊值與前一筆串連，匯出的紀錄可用 { $command } 離線驗證。
audit-partial-note = 此篩選會略過部分事件：匯出後只能逐筆驗證事件的雜湊值（{ $command }），無法驗證整條鏈。若要匯出可完整驗證的鏈，請清除結束時間以外的所有篩選條件。
audit-filter-label = 篩選稽核事件
audit-filter-from = 開始時間（UTC）
audit-filter-to = 結束時間（UTC）
audit-filter-actor = 執行者
audit-filter-action = 動作
audit-filter-op-id = 操作 ID
audit-filter-order = 訂單
audit-apply = 套用
audit-clear = 清除
audit-export-csv = 匯出 CSV
audit-export-jsonl = 匯出 JSON Lines
audit-empty = 尚無事件：每項操作及其上的每個動作都會記錄在這裡。
audit-empty-filtered = 沒有符合這些篩選條件的事件。請放寬條件，或清除篩選以查看所有事件。
audit-col-seq = 序號
audit-col-at = 時間
audit-col-actor = 執行者
audit-col-action = 動作
audit-col-operation = 操作
audit-col-change = 變更
audit-col-reason = 原因與證據
audit-col-hash = 雜湊值
# $role 是執行者的角色名稱（客服、主管…）。
audit-actor = { $actor }（{ $role }）
audit-evidence = 證據
audit-newest = ← 最新事件
audit-older = 較舊事件 →
audit-damaged-link = 頁面連結已損壞，請回到第一頁。

# 動作篩選提供的動作（事件本身顯示記錄下來的代碼）。
audit-action-approve = 核准
audit-action-deny = 駁回
audit-action-expire-approval = 核准逾期
audit-action-begin-attempt = 開始嘗試
audit-action-record-outcome = 記錄結果
audit-action-mark-unknown = 標記為結果未明
audit-action-confirm-found = 確認已找到
audit-action-resend-same-key = 以相同冪等鍵重送
audit-action-escalate = 轉交人員確認
audit-action-mark-succeeded = 標記為已完成
audit-action-mark-not-happened = 標記為未發生
audit-action-cancel = 取消
audit-action-register = 登記
audit-action-refuse-conflict = 拒絕衝突請求
audit-action-add-user = 新增使用者
audit-action-create-api-token = 建立 API 權杖
audit-action-revoke-api-token = 撤銷 API 權杖
audit-action-add-approval-rule = 新增核准規則
audit-action-remove-approval-rule = 移除核准規則
audit-action-set-provider-connection = 設定服務商連線
audit-action-set-provider-webhook-secret = 設定服務商 Webhook 密鑰
audit-action-remove-provider-connection = 移除服務商連線
audit-action-set-email-template = 設定 Email 範本
audit-action-remove-email-template = 移除 Email 範本
