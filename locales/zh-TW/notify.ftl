# 以電子郵件、Slack、Microsoft Teams 與 LINE 發送的通知（src/domain/notice.rs）：什麼在等待、
# 等誰處理、等了多久，並附上可在主控台處理的頁面連結。
# $what 是等待中的事項，$waited 是等待時間（notify-waited-*），$stage 是 first、reminder 或 escalation。

## 等待時間。
notify-waited-minutes = { $n } 分鐘
notify-waited-hours = { $n } 小時
notify-waited-hours-minutes = { $hours } 小時 { $minutes } 分鐘
notify-waited-days = { $n } 天

## 通知的標題，依事項與提醒階段而不同。
notify-title-approval =
    { $stage ->
        [reminder] 已等待 { $waited }，仍待核准：{ $what }
        [escalation] 已升級處理：{ $waited }內無人核准或駁回：{ $what }
       *[first] 待核准：{ $what }
    }
notify-title-review =
    { $stage ->
        [reminder] 已等待 { $waited }，仍待確認：{ $what }
        [escalation] 已升級處理：{ $waited }內無人確認：{ $what }
       *[first] 待確認：{ $what }
    }
notify-title-unknown =
    { $stage ->
        [reminder] 已過 { $waited }，結果仍不明：{ $what }
        [escalation] 已升級處理：結果不明已 { $waited }，仍無人處理：{ $what }
       *[first] 結果不明已 { $waited }：{ $what }
    }
notify-title-accepted =
    { $stage ->
        [reminder] 已過 { $waited }，仍未完成：{ $what }
        [escalation] 已升級處理：已受理 { $waited } 仍未完成，且無人處理：{ $what }
       *[first] 已受理 { $waited } 仍未完成：{ $what }
    }
notify-title-bulk = 批次作業已結束：{ $what }
notify-title-archive = 與簽署時不符：{ $what }
notify-title-failing =
    { $stage ->
        [reminder] 已過 { $waited }，仍然失敗：{ $what }
        [escalation] 已升級處理：失敗已 { $waited }，仍無人處理：{ $what }
       *[first] 傳送失敗：{ $what }
    }

## 不是操作時，等待中的事項。
notify-bulk-what = 批次作業「{ $name }」：共 { $total } 筆，完成 { $done } 筆、失敗 { $failed } 筆
notify-failing-webhook = 傳送到 { $host } 的 Webhook
notify-failing-connection = 經由連線「{ $name }」送出的請求
notify-archive-what = 封存檔 { $object }：{ $why }
notify-mention-what = { $by } 在 { $item } 的備註中提到了你
notify-mention-what-people = { $by } 在 { $item } 的備註中提到了 { $people }

## 標題下的詳細資料。
notify-fact-note = 備註：「{ $excerpt }」
notify-fact-operation = 操作：{ $op_id }
notify-fact-asked-by = 申請人：{ $who }
notify-fact-waiting = 已等待：{ $waited }
notify-fact-last-error = 最近一次錯誤：{ $error }

## 讀者可以做什麼。
notify-hint-approval = 請登入主控台核准或駁回；申請人本人不能核准。
notify-hint-review = 服務商的回應無法確認結果：請查明實際情況，並在主控台記錄。
notify-hint-unknown = 目前還無法確定是否已執行，系統也不會自行重送：請到主控台確認。
notify-hint-accepted = 服務商已受理，但尚未回報是否完成：請到主控台確認。
notify-hint-bulk = 這次批次作業的每一筆操作都列在主控台中。
notify-hint-failing = 系統會自動重試；請在主控台修正網址或連線設定。
notify-hint-archive = 在簽署過的檔案放回封存位置之前，不會顯示其中任何內容：請與備份比對，或對備份執行 opledger audit verify-archive。
notify-hint-mention = 請開啟頁面閱讀完整備註並在那裡回覆；備註不會寄給顧客。

## 連結與彙整。
notify-open = 在主控台開啟
notify-digest-title = 有 { $count } 件事項等您處理
notify-digest-more = …還有 { $n } 件
notify-open-at = { $open }：{ $link }
notify-digest-open = 在主控台開啟清單
notify-email-footer = 您會收到這封信，是因為 opledger 的通知規則中列有您。這封信不會核准或變更任何事項：連結只會開啟主控台，登入後才能處理。
