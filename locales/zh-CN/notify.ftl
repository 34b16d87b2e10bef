# 通过电子邮件、Slack、Microsoft Teams 和 LINE 发送的通知（src/domain/notice.rs）：什么在等待、
# 等谁处理、等了多久，并附上可在控制台处理的页面链接。
# $what 是等待中的事项，$waited 是等待时长（notify-waited-*），$stage 是 first、reminder 或 escalation。

## 等待时长。
notify-waited-minutes = { $n } 分钟
notify-waited-hours = { $n } 小时
notify-waited-hours-minutes = { $hours } 小时 { $minutes } 分钟
notify-waited-days = { $n } 天

## 通知的标题，按事项和提醒阶段而不同。
notify-title-approval =
    { $stage ->
        [reminder] 已等待 { $waited }，仍待审批：{ $what }
        [escalation] 已升级：{ $waited }内无人审批或驳回：{ $what }
       *[first] 待审批：{ $what }
    }
notify-title-review =
    { $stage ->
        [reminder] 已等待 { $waited }，仍待确认：{ $what }
        [escalation] 已升级：{ $waited }内无人确认：{ $what }
       *[first] 待确认：{ $what }
    }
notify-title-unknown =
    { $stage ->
        [reminder] 已过 { $waited }，结果仍不明：{ $what }
        [escalation] 已升级：结果不明已 { $waited }，仍无人处理：{ $what }
       *[first] 结果不明已 { $waited }：{ $what }
    }
notify-title-accepted =
    { $stage ->
        [reminder] 已过 { $waited }，仍未完成：{ $what }
        [escalation] 已升级：已受理 { $waited } 仍未完成，且无人处理：{ $what }
       *[first] 已受理 { $waited } 仍未完成：{ $what }
    }
notify-title-bulk = 批量操作已结束：{ $what }
notify-title-archive = 与签名时不符：{ $what }
notify-title-failing =
    { $stage ->
        [reminder] 已过 { $waited }，仍然失败：{ $what }
        [escalation] 已升级：失败已 { $waited }，仍无人处理：{ $what }
       *[first] 发送失败：{ $what }
    }

## 不是操作时，等待中的事项。
notify-bulk-what = 批量操作“{ $name }”：共 { $total } 笔，完成 { $done } 笔，失败 { $failed } 笔
notify-failing-webhook = 发往 { $host } 的 Webhook
notify-failing-connection = 通过连接“{ $name }”发出的请求
notify-archive-what = 归档文件 { $object }：{ $why }
notify-mention-what = { $by } 在 { $item } 的备注中提到了你
notify-mention-what-people = { $by } 在 { $item } 的备注中提到了 { $people }

## 标题下的详细信息。
notify-fact-note = 备注：“{ $excerpt }”
notify-fact-operation = 操作：{ $op_id }
notify-fact-asked-by = 申请人：{ $who }
notify-fact-waiting = 已等待：{ $waited }
notify-fact-last-error = 最近一次错误：{ $error }

## 读者可以做什么。
notify-hint-approval = 请登录控制台审批或驳回；申请人本人不能审批。
notify-hint-review = 服务商的响应无法确认结果：请查明实际情况，并在控制台记录。
notify-hint-unknown = 目前还无法确定是否已执行，系统也不会自行重发：请到控制台确认。
notify-hint-accepted = 服务商已受理，但尚未告知是否完成：请到控制台确认。
notify-hint-bulk = 这次批量操作的每一笔操作都列在控制台中。
notify-hint-failing = 系统会自动重试；请在控制台修正地址或连接设置。
notify-hint-archive = 在签名过的文件放回归档位置之前，不会显示其中任何内容：请与备份比对，或对备份运行 opledger audit verify-archive。
notify-hint-mention = 请打开页面阅读完整备注并在那里回复；备注不会发给顾客。

## 链接与汇总。
notify-open = 在控制台打开
notify-digest-title = 有 { $count } 项事项等您处理
notify-digest-more = …还有 { $n } 项
notify-open-at = { $open }：{ $link }
notify-digest-open = 在控制台打开列表
notify-email-footer = 您收到这封邮件，是因为 opledger 的通知规则中包含您。这封邮件不会审批或更改任何事项：链接只会打开控制台，登录后才能处理。
