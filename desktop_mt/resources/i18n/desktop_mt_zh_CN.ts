<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>Alignment</name>
    <message>
        <source>From the translation memory</source>
        <translation>来自翻译记忆库</translation>
    </message>
    <message>
        <source>Confirmed: in the translation memory as approved</source>
        <translation>已确认：已作为已批准译文存入翻译记忆库</translation>
    </message>
    <message>
        <source>Glossary term missing from this translation: {terms}</source>
        <translation>此译文缺少术语表中的术语：{terms}</translation>
    </message>
</context>
<context>
    <name>Alternatives</name>
    <message>
        <source>Alternatives…</source>
        <translation>备选译文…</translation>
    </message>
    <message>
        <source>Other translations of the sentence under the cursor ({keys})</source>
        <translation>光标所在句子的其他译法（{keys}）</translation>
    </message>
    <message>
        <source>Alternatives from here</source>
        <translation>从此处起的备选译文</translation>
    </message>
    <message>
        <source>Other continuations of the translation from the word at the cursor ({keys})</source>
        <translation>从光标处词语起译文的其他续写（{keys}）</translation>
    </message>
    <message>
        <source>Place the cursor in a translated sentence to see its alternatives.</source>
        <translation>请将光标置于已翻译的句子中以查看其备选译文。</translation>
    </message>
    <message>
        <source>Finding alternatives…</source>
        <translation>正在查找备选译文…</translation>
    </message>
    <message>
        <source>Finding alternatives from this word…</source>
        <translation>正在查找从此词起的备选译文…</translation>
    </message>
    <message>
        <source>Alternatives for “{text}”</source>
        <translation>“{text}”的备选译文</translation>
    </message>
    <message>
        <source>score {score}</source>
        <translation>得分 {score}</translation>
    </message>
    <message>
        <source>Alternatives from “{word}”</source>
        <translation>从“{word}”起的备选译文</translation>
    </message>
</context>
<context>
    <name>App</name>
    <message>
        <source>desktop-mt is still running</source>
        <translation>desktop-mt 仍在运行</translation>
    </message>
    <message>
        <source>The hotkey and this tray icon keep working. Quit from the tray menu or with Ctrl+Q.</source>
        <translation>快捷键和托盘图标仍然有效。可从托盘菜单或按 Ctrl+Q 退出。</translation>
    </message>
    <message>
        <source>Unexpected error</source>
        <translation>意外错误</translation>
    </message>
    <message>
        <source>Something went wrong, but your text is safe and the app keeps running.

{summary}

Details (without your text) were written to {log}.</source>
        <translation>出现了问题，但您的文本安然无恙，程序仍在运行。

{summary}

详细信息（不含您的文本）已写入 {log}。</translation>
    </message>
    <message>
        <source>No Chinese font found: install Noto Sans CJK SC (Debian/Ubuntu: fonts-noto-cjk) so the translation renders.</source>
        <translation>未找到中文字体：请安装 Noto Sans CJK SC（Debian/Ubuntu：fonts-noto-cjk），以便正常显示译文。</translation>
    </message>
</context>
<context>
    <name>Capture</name>
    <message>
        <source>This desktop (Wayland) does not let apps capture the screen. Take a screenshot of the region with your desktop&apos;s screenshot tool, copying it to the clipboard, then paste it into desktop-mt with Ctrl+V (or drop an image file on the window).</source>
        <translation>此桌面环境（Wayland）不允许程序截取屏幕。请用桌面环境的截图工具截取该区域并复制到剪贴板，然后在 desktop-mt 中按 Ctrl+V 粘贴（或将图片文件拖到窗口上）。</translation>
    </message>
    <message>
        <source>There is no screen to capture in this session.</source>
        <translation>此会话中没有可截取的屏幕。</translation>
    </message>
</context>
<context>
    <name>Completion</name>
    <message>
        <source>No completion: {why}</source>
        <translation>无补全：{why}</translation>
    </message>
</context>
<context>
    <name>CompletionHint</name>
    <message>
        <source>Tab accepts · Esc dismisses</source>
        <translation>Tab 接受 · Esc 忽略</translation>
    </message>
    <message>
        <source>The model&apos;s completion of this sentence from what you typed ({keys}):</source>
        <translation>模型根据您的输入对此句的补全（{keys}）：</translation>
    </message>
</context>
<context>
    <name>Controller</name>
    <message>
        <source>{action}, from any application (Settings &gt; Global shortcuts)</source>
        <translation>{action}，在任何程序中有效（设置 &gt; 全局快捷键）</translation>
    </message>
    <message>
        <source>Could not save settings: {error}</source>
        <translation>无法保存设置：{error}</translation>
    </message>
</context>
<context>
    <name>DirectionBar</name>
    <message>
        <source>Auto</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>Translation direction: Auto translates each sentence into the other language</source>
        <translation>翻译方向：“自动”将每个句子译为另一种语言</translation>
    </message>
    <message>
        <source>Swap ({keys}): the translation becomes the source and the direction flips (Ctrl+Z in the source brings the text and the direction back)</source>
        <translation>互换（{keys}）：译文变为原文，翻译方向对调（在原文中按 Ctrl+Z 可恢复文本和方向）</translation>
    </message>
    <message>
        <source>Auto ({detected})</source>
        <translation>自动（{detected}）</translation>
    </message>
</context>
<context>
    <name>DownloadArea</name>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Stop the download (nothing half-downloaded is kept)</source>
        <translation>停止下载（不保留下载了一半的文件）</translation>
    </message>
    <message>
        <source>{endpoint} (default)</source>
        <translation>{endpoint}（默认）</translation>
    </message>
    <message>
        <source>A mirror that speaks the Hugging Face Hub API, for networks where the Hub is blocked or slow (e.g. {mirror}). Empty: the HF_ENDPOINT variable, else huggingface.co.</source>
        <translation>兼容 Hugging Face Hub API 的镜像，适用于无法访问或访问缓慢 Hub 的网络（例如 {mirror}）。留空：使用 HF_ENDPOINT 环境变量，否则使用 huggingface.co。</translation>
    </message>
    <message>
        <source>Mirror not saved: {error}</source>
        <translation>镜像设置未保存：{error}</translation>
    </message>
    <message>
        <source>the model hub</source>
        <translation>模型仓库</translation>
    </message>
    <message>
        <source>Connecting to {endpoint}…</source>
        <translation>正在连接 {endpoint}…</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <source>Downloading…</source>
        <translation>正在下载…</translation>
    </message>
    <message>
        <source>Asking {endpoint} for the file list…</source>
        <translation>正在向 {endpoint} 获取文件列表…</translation>
    </message>
    <message>
        <source>Installing…</source>
        <translation>正在安装…</translation>
    </message>
    <message>
        <source>Checking {file} · {progress}</source>
        <translation>正在校验 {file} · {progress}</translation>
    </message>
    <message>
        <source>{name} is installed. Select it and press “{use}”.</source>
        <translation>{name} 已安装。选中它并点击“{use}”。</translation>
    </message>
    <message>
        <source>Download of {name} failed: {error}</source>
        <translation>{name} 下载失败：{error}</translation>
    </message>
    <message>
        <source>Download of {name} cancelled; nothing was installed. Downloading it again continues where it stopped.</source>
        <translation>{name} 的下载已取消，未安装任何内容。再次下载时将从中断处继续。</translation>
    </message>
</context>
<context>
    <name>Downloads</name>
    <message>
        <source>{endpoint} sent less than {kib} KiB in {seconds} s. What arrived is kept: press Download to continue, or enter another mirror in “Download from” below (for example {mirror}).</source>
        <translation>{endpoint} 在 {seconds} 秒内发送的数据不足 {kib} KiB。已收到的部分会保留：点击“下载”继续，或在下方“下载来源”中填写其他镜像（例如 {mirror}）。</translation>
    </message>
    <message>
        <source>could not reach {endpoint}. Check the internet connection, or enter a mirror in “Download from” below (for example {mirror}) and press Download again.</source>
        <translation>无法连接 {endpoint}。请检查网络连接，或在下方“下载来源”中填写镜像（例如 {mirror}）后再次点击“下载”。</translation>
    </message>
    <message>
        <source>{done} of {total}</source>
        <translation>{done} / {total}</translation>
    </message>
    <message>
        <source>{seconds} s left</source>
        <translation>剩余 {seconds} 秒</translation>
    </message>
    <message>
        <source>{minutes} min left</source>
        <translation>剩余 {minutes} 分钟</translation>
    </message>
    <message>
        <source>The download of {name} failed ({error}). Details are in the log file.</source>
        <translation>{name} 下载失败（{error}）。详细信息见日志文件。</translation>
    </message>
</context>
<context>
    <name>Drafts</name>
    <message>
        <source> ({done} of {total} lines translated)</source>
        <translation>（已翻译 {done}/{total} 行）</translation>
    </message>
    <message>
        <source>The translation restored from last time is incomplete{how_far}. Translate to finish it.</source>
        <translation>从上次恢复的译文不完整{how_far}。请重新翻译以完成。</translation>
    </message>
</context>
<context>
    <name>EngineConfig</name>
    <message>
        <source>default models</source>
        <translation>默认模型</translation>
    </message>
</context>
<context>
    <name>EngineLoading</name>
    <message>
        <source>EN→ZH</source>
        <translation>英→中</translation>
    </message>
    <message>
        <source>ZH→EN</source>
        <translation>中→英</translation>
    </message>
    <message>
        <source>model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>{way}: no model</source>
        <translation>{way}：无模型</translation>
    </message>
    <message>
        <source>demo models</source>
        <translation>演示模型</translation>
    </message>
    <message>
        <source>models</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>EN⇄ZH</source>
        <translation>中英</translation>
    </message>
    <message>
        <source>{way} model</source>
        <translation>{way} 模型</translation>
    </message>
    <message>
        <source>{way}: none</source>
        <translation>{way}：无</translation>
    </message>
    <message>
        <source>File &gt; Models… downloads {model}</source>
        <translation>可通过“文件 &gt; 模型…”下载 {model}</translation>
    </message>
    <message>
        <source>File &gt; Models… adds one</source>
        <translation>可通过“文件 &gt; 模型…”添加</translation>
    </message>
    <message>
        <source>{way}: no model installed ({how})</source>
        <translation>{way}：未安装模型（{how}）</translation>
    </message>
    <message>
        <source>, bundled demo model</source>
        <translation>，内置演示模型</translation>
    </message>
    <message>
        <source>{model}: its licence and data sources are in {files} in {folder}</source>
        <translation>{model}：其许可证和数据来源见 {folder} 中的 {files}</translation>
    </message>
    <message>
        <source>{model}: its folder ({folder}) has no model card; check the licence where you got it</source>
        <translation>{model}：其文件夹（{folder}）中没有模型说明；请在获取该模型的地方查看许可证</translation>
    </message>
    <message>
        <source>No {way} model: {how}.</source>
        <translation>没有 {way} 模型：{how}。</translation>
    </message>
    <message>
        <source>Model: {model} ({variant}), {way}</source>
        <translation>模型：{model}（{variant}），{way}</translation>
    </message>
    <message>
        <source>These are the bundled demo models ({models}): trained on short everyday sentences (Tatoeba pairs, CC-BY 2.0 FR) only, not for real text. File &gt; Models… downloads a real model.</source>
        <translation>这些是内置演示模型（{models}）：仅用简短的日常句子（Tatoeba 句对，CC-BY 2.0 FR）训练，不适合正式文本。可通过“文件 &gt; 模型…”下载正式模型。</translation>
    </message>
    <message>
        <source>This is the bundled demo model ({models}): trained on short everyday sentences (Tatoeba pairs, CC-BY 2.0 FR) only, not for real text. File &gt; Models… downloads a real model.</source>
        <translation>这是内置演示模型（{models}）：仅用简短的日常句子（Tatoeba 句对，CC-BY 2.0 FR）训练，不适合正式文本。可通过“文件 &gt; 模型…”下载正式模型。</translation>
    </message>
    <message>
        <source>desktop-mt {version}: offline English ⇄ Chinese translation on this machine.
Code: MIT licence. Nothing is sent over the network.</source>
        <translation>desktop-mt {version}：在本机离线进行英文 ⇄ 中文翻译。
代码：MIT 许可证。不会通过网络发送任何内容。</translation>
    </message>
    <message>
        <source>The models are not part of the code licence: {notes}.</source>
        <translation>模型不在代码许可证的范围内：{notes}。</translation>
    </message>
    <message>
        <source>model not loaded</source>
        <translation>模型未加载</translation>
    </message>
    <message>
        <source>No model</source>
        <translation>无模型</translation>
    </message>
    <message>
        <source>Could not load the model</source>
        <translation>无法加载模型</translation>
    </message>
    <message>
        <source>Could not load the chosen model {model}: {why} Using the bundled model instead; choose another model in Settings.</source>
        <translation>无法加载所选模型 {model}：{why} 已改用内置模型；请在设置中选择其他模型。</translation>
    </message>
</context>
<context>
    <name>EntryTable</name>
    <message>
        <source>Source</source>
        <translation>原文</translation>
    </message>
    <message>
        <source>Translation</source>
        <translation>译文</translation>
    </message>
    <message>
        <source>Origin</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Changed</source>
        <translation>修改时间</translation>
    </message>
    <message>
        <source>Match</source>
        <translation>匹配</translation>
    </message>
    <message>
        <source>approved</source>
        <translation>已批准</translation>
    </message>
    <message>
        <source>imported</source>
        <translation>已导入</translation>
    </message>
    <message>
        <source>edited</source>
        <translation>已编辑</translation>
    </message>
    <message>
        <source>Machine translation: {text}</source>
        <translation>机器翻译：{text}</translation>
    </message>
    <message>
        <source>Note: {text}</source>
        <translation>备注：{text}</translation>
    </message>
    <message>
        <source>By: {name}</source>
        <translation>创建者：{name}</translation>
    </message>
    <message>
        <source>Created: {date}</source>
        <translation>创建时间：{date}</translation>
    </message>
</context>
<context>
    <name>FileQueue</name>
    <message>
        <source>A file is already being translated.</source>
        <translation>已有文件正在翻译。</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message numerus="yes">
        <source>%n more file(s) will be translated after this one: {names}</source>
        <translation>
            <numerusform>此文件之后还将翻译 %n 个文件：{names}</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n queued file(s) not started. {message}</source>
        <translation>
            <numerusform>%n 个排队中的文件未开始。{message}</numerusform>
        </translation>
    </message>
    <message>
        <source> ({summary}, {seconds} s)</source>
        <translation>（{summary}，{seconds} 秒）</translation>
    </message>
    <message>
        <source>Saved {path}{about}</source>
        <translation>已保存 {path}{about}</translation>
    </message>
    <message>
        <source>File translation failed</source>
        <translation>文件翻译失败</translation>
    </message>
    <message>
        <source>Cancelled: {kept} of {total} segments kept in {journal}; translate the file again to continue from there.</source>
        <translation>已取消：{total} 个句段中的 {kept} 个已保留在 {journal} 中；再次翻译该文件即可从中断处继续。</translation>
    </message>
    <message>
        <source>File translation cancelled before any segment was finished; nothing was saved.</source>
        <translation>文件翻译在任何句段完成前已取消，未保存任何内容。</translation>
    </message>
    <message>
        <source>file job: {name}{counts}</source>
        <translation>文件任务：{name}{counts}</translation>
    </message>
</context>
<context>
    <name>FirstStart</name>
    <message>
        <source>Welcome to desktop-mt</source>
        <translation>欢迎使用 desktop-mt</translation>
    </message>
    <message>
        <source>Not now (File &gt; Models… &gt; “First start…” brings this back)</source>
        <translation>暂不（可通过“文件 &gt; 模型… &gt; 首次使用…”再次打开）</translation>
    </message>
    <message>
        <source>The app comes with two small demo models, one for each direction. They show that translation runs on this computer, offline, but they learned only short everyday sentences: real text (articles, manuals, mail) comes out as nonsense. For real work, get the real models, one step for both directions:</source>
        <translation>本程序自带两个小型演示模型，每个翻译方向一个。它们用来表明翻译可以在本机离线运行，但只学过简短的日常句子：正式文本（文章、手册、邮件）会被译得不知所云。正式使用请下载正式模型，两个方向一步完成：</translation>
    </message>
    <message>
        <source>In mainland China the Hub is often blocked or slow: choose the mirror {mirror} (or set HF_ENDPOINT) in “Download from”.</source>
        <translation>在中国大陆，Hub 常常无法访问或速度很慢：请在“下载来源”中选择镜像 {mirror}（或设置 HF_ENDPOINT 环境变量）。</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Stop for now; what arrived is kept</source>
        <translation>暂时停止；已下载的部分会保留</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Continue where the download stopped</source>
        <translation>从下载中断处继续</translation>
    </message>
    <message>
        <source>Not now</source>
        <translation>暂不</translation>
    </message>
    <message>
        <source>Download from:</source>
        <translation>下载来源：</translation>
    </message>
    <message>
        <source>Cannot read the model catalog: {error}</source>
        <translation>无法读取模型目录：{error}</translation>
    </message>
    <message>
        <source>{direction}: {title}, {size}, licence {licence}</source>
        <translation>{direction}：{title}，{size}，许可证 {licence}</translation>
    </message>
    <message>
        <source>Download both ({size})</source>
        <translation>下载两个模型（{size}）</translation>
    </message>
    <message>
        <source>Download ({size})</source>
        <translation>下载（{size}）</translation>
    </message>
    <message>
        <source>No internet here? On a computer that has it, run “desktop-mt models download {names}” (or download them in the app), copy the model folders from its models folder to this computer and add each with “desktop-mt models add FOLDER” or Settings… &gt; “Add model folder…”; or copy them straight into {folder}.</source>
        <translation>这台电脑不能上网？在能上网的电脑上运行“desktop-mt models download {names}”（或在程序中下载），把其模型文件夹中的模型文件夹复制到这台电脑，再用“desktop-mt models add FOLDER”或“设置… &gt; 添加模型文件夹…”逐个添加；也可以直接复制到 {folder}。</translation>
    </message>
    <message>
        <source>Source: the Hugging Face Hub, from {endpoint}.</source>
        <translation>来源：Hugging Face Hub，经由 {endpoint}。</translation>
    </message>
    <message>
        <source>{model}: {file}</source>
        <translation>{model}：{file}</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>正在开始…</translation>
    </message>
    <message>
        <source>Downloading…</source>
        <translation>正在下载…</translation>
    </message>
    <message>
        <source>Checking…</source>
        <translation>正在校验…</translation>
    </message>
    <message>
        <source>Installing…</source>
        <translation>正在安装…</translation>
    </message>
    <message>
        <source>Installed</source>
        <translation>已安装</translation>
    </message>
    <message>
        <source>Cancelled; nothing was installed. Download again to continue where it stopped.</source>
        <translation>已取消，未安装任何内容。再次下载时将从中断处继续。</translation>
    </message>
    <message>
        <source>Could not use the models: {error}</source>
        <translation>无法使用这些模型：{error}</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <source>Waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>Not installed</source>
        <translation>未安装</translation>
    </message>
</context>
<context>
    <name>FolderAdding</name>
    <message>
        <source>Could not add {folder}: {error}</source>
        <translation>无法添加 {folder}：{error}</translation>
    </message>
    <message>
        <source>Could not add {folder}</source>
        <translation>无法添加 {folder}</translation>
    </message>
</context>
<context>
    <name>GlobalHotkey</name>
    <message>
        <source>another action of desktop-mt</source>
        <translation>desktop-mt 的另一项操作</translation>
    </message>
    <message>
        <source>Global hotkey {keys} is active.{note}</source>
        <translation>全局快捷键 {keys} 已启用。{note}</translation>
    </message>
</context>
<context>
    <name>GlossaryEditor</name>
    <message>
        <source>Glossary (*.csv *.tsv *.txt);;All files (*)</source>
        <translation>术语表 (*.csv *.tsv *.txt);;所有文件 (*)</translation>
    </message>
    <message>
        <source>English</source>
        <translation>英文</translation>
    </message>
    <message>
        <source>Chinese</source>
        <translation>中文</translation>
    </message>
    <message>
        <source>Case-sensitive</source>
        <translation>区分大小写</translation>
    </message>
    <message>
        <source>The glossary is not used: {error}</source>
        <translation>未使用术语表：{error}</translation>
    </message>
    <message>
        <source>Add term</source>
        <translation>添加术语</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Import CSV/TSV…</source>
        <translation>导入 CSV/TSV…</translation>
    </message>
    <message>
        <source>Two columns, English and Chinese (an optional third: &apos;case&apos; for case-sensitive); comma or tab separated, UTF-8</source>
        <translation>两列：英文和中文（可选第三列：填“case”表示区分大小写）；以逗号或制表符分隔，UTF-8 编码</translation>
    </message>
    <message>
        <source>Cannot read the saved glossary: {error}</source>
        <translation>无法读取已保存的术语表：{error}</translation>
    </message>
    <message>
        <source>Row {row} needs both an English and a Chinese term.</source>
        <translation>第 {row} 行需要同时填写英文术语和中文术语。</translation>
    </message>
    <message>
        <source>Import a glossary</source>
        <translation>导入术语表</translation>
    </message>
    <message>
        <source>Imported {count} terms from {file}.</source>
        <translation>已从 {file} 导入 {count} 个术语。</translation>
    </message>
    <message>
        <source>Cannot save the glossary: {error}</source>
        <translation>无法保存术语表：{error}</translation>
    </message>
</context>
<context>
    <name>HistoryDialog</name>
    <message>
        <source>History</source>
        <translation>历史记录</translation>
    </message>
    <message>
        <source>Search the source and the translation…</source>
        <translation>搜索原文和译文…</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>原文</translation>
    </message>
    <message>
        <source>Translation</source>
        <translation>译文</translation>
    </message>
    <message>
        <source>Machine translation</source>
        <translation>机器译文</translation>
    </message>
    <message>
        <source>Compare with the machine&apos;s translation</source>
        <translation>与机器译文对比</translation>
    </message>
    <message>
        <source>Show the machine&apos;s translation beside your edited one, the differences highlighted</source>
        <translation>在您编辑的译文旁显示机器译文，并突出显示差异</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>Put this entry back into the editors (Ctrl+Z brings your text back)</source>
        <translation>将此条目放回编辑窗格（Ctrl+Z 可恢复您的文本）</translation>
    </message>
    <message>
        <source>Copy translation</source>
        <translation>复制译文</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Clear all…</source>
        <translation>全部清除…</translation>
    </message>
    <message>
        <source>Cannot read the history: {error}</source>
        <translation>无法读取历史记录：{error}</translation>
    </message>
    <message>
        <source>Edited {when}</source>
        <translation>编辑于 {when}</translation>
    </message>
    <message>
        <source> (the newest shown; type to narrow)</source>
        <translation>（仅显示最新的条目；输入以缩小范围）</translation>
    </message>
    <message>
        <source>{count} matching “{query}”{more}</source>
        <translation>{count} 条匹配“{query}”{more}</translation>
    </message>
    <message>
        <source>Nothing matches “{query}”.</source>
        <translation>没有匹配“{query}”的记录。</translation>
    </message>
    <message>
        <source>{count} translations kept{more}</source>
        <translation>已保存 {count} 条翻译{more}</translation>
    </message>
    <message>
        <source>No translations kept yet.</source>
        <translation>尚未保存任何翻译。</translation>
    </message>
    <message>
        <source>Your translation (edited {when})</source>
        <translation>您的译文（编辑于 {when}）</translation>
    </message>
    <message>
        <source>Clear the history?</source>
        <translation>清除历史记录？</translation>
    </message>
    <message>
        <source>Forget all {count} kept translations? This cannot be undone.</source>
        <translation>要删除已保存的全部 {count} 条翻译吗？此操作无法撤销。</translation>
    </message>
    <message>
        <source>The translation history cannot be opened: {error}</source>
        <translation>无法打开翻译历史：{error}</translation>
    </message>
    <message>
        <source>The translation history was damaged. It was moved aside as {name} and a new, empty history was started.</source>
        <translation>翻译历史已损坏。原文件已另存为 {name}，并新建了一个空的历史记录。</translation>
    </message>
    <message>
        <source>History is off (Settings: Keep a history of translations); nothing is kept.</source>
        <translation>历史记录已关闭（设置：保留翻译历史），不会保存任何内容。</translation>
    </message>
    <message>
        <source>History (off: new translations are not kept; see Settings)</source>
        <translation>历史记录（已关闭：新的翻译不会保存；见设置）</translation>
    </message>
</context>
<context>
    <name>HotkeyLink</name>
    <message>
        <source>The clipboard holds no text to translate.</source>
        <translation>剪贴板中没有可翻译的文本。</translation>
    </message>
    <message>
        <source>No hotkey layer.</source>
        <translation>没有全局快捷键层。</translation>
    </message>
    <message>
        <source>Global hotkey is off.</source>
        <translation>全局快捷键已关闭。</translation>
    </message>
    <message>
        <source>Unavailable: this run has no global hotkey layer.</source>
        <translation>不可用：本次运行没有全局快捷键层。</translation>
    </message>
    <message>
        <source>Unavailable: {why}</source>
        <translation>不可用：{why}</translation>
    </message>
    <message>
        <source>Off. {hint}</source>
        <translation>已关闭。{hint}</translation>
    </message>
    <message>
        <source>Active: {keys} translates the clipboard from any application.</source>
        <translation>已启用：在任何程序中按 {keys} 即可翻译剪贴板。</translation>
    </message>
    <message>
        <source>not registered yet</source>
        <translation>尚未注册</translation>
    </message>
    <message>
        <source>Failed to register {keys}. {why}</source>
        <translation>无法注册 {keys}。{why}</translation>
    </message>
</context>
<context>
    <name>JobResume</name>
    <message>
        <source>Continue</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Discard</source>
        <translation>丢弃</translation>
    </message>
    <message>
        <source>Delete what the interrupted translation kept</source>
        <translation>删除中断的翻译已保留的部分</translation>
    </message>
    <message>
        <source>The translation of {name} was interrupted with {kept} of {total} segments done. Continue it, or discard what was kept?</source>
        <translation>{name} 的翻译已中断，已完成 {total} 个句段中的 {kept} 个。要继续翻译，还是丢弃已保留的部分？</translation>
    </message>
    <message>
        <source>Could not delete the kept part: {error}</source>
        <translation>无法删除已保留的部分：{error}</translation>
    </message>
</context>
<context>
    <name>Keys</name>
    <message>
        <source>Translate and replace is unavailable on Wayland: apps cannot send key presses to other windows there.</source>
        <translation>翻译并替换在 Wayland 上不可用：程序无法向其他窗口发送按键。</translation>
    </message>
    <message>
        <source>Translate and replace is unavailable: there is no X display.</source>
        <translation>翻译并替换不可用：没有 X 显示。</translation>
    </message>
</context>
<context>
    <name>LocalApi</name>
    <message>
        <source>a server package</source>
        <translation>某个服务器软件包</translation>
    </message>
    <message>
        <source>The Local API needs the optional server packages ({package} is not installed): {command}, then restart desktop-mt.</source>
        <translation>本地 API 需要可选的服务器软件包（未安装 {package}）：请运行 {command}，然后重新启动 desktop-mt。</translation>
    </message>
    <message>
        <source>Local API: port {port} is in use (by another program, or another desktop-mt): choose another port in Settings &gt; Local API port.</source>
        <translation>本地 API：端口 {port} 已被占用（被其他程序或另一个 desktop-mt 使用）：请在“设置 &gt; 本地 API 端口”中选择其他端口。</translation>
    </message>
    <message>
        <source>Local API: this system does not allow listening on port {port}: choose a port above 1023 in Settings &gt; Local API port.</source>
        <translation>本地 API：本系统不允许监听端口 {port}：请在“设置 &gt; 本地 API 端口”中选择大于 1023 的端口。</translation>
    </message>
    <message>
        <source>Local API: cannot listen on port {port} ({why}): choose another port.</source>
        <translation>本地 API：无法监听端口 {port}（{why}）：请选择其他端口。</translation>
    </message>
    <message>
        <source>Local API: the model could not be loaded: {error}</source>
        <translation>本地 API：无法加载模型：{error}</translation>
    </message>
    <message>
        <source>Local API: the server could not start: {error}</source>
        <translation>本地 API：服务器无法启动：{error}</translation>
    </message>
    <message>
        <source>Local API: the server stopped unexpectedly: {error}</source>
        <translation>本地 API：服务器意外停止：{error}</translation>
    </message>
    <message>
        <source>Off.</source>
        <translation>已关闭。</translation>
    </message>
    <message>
        <source>Local API starting on {url} (loading the model)…</source>
        <translation>本地 API 正在 {url} 上启动（正在加载模型）…</translation>
    </message>
    <message>
        <source>Local API on {url}</source>
        <translation>本地 API 运行于 {url}</translation>
    </message>
    <message>
        <source>Local API: not running</source>
        <translation>本地 API：未运行</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>loading</source>
        <translation>正在加载</translation>
    </message>
    <message>
        <source>translating</source>
        <translation>正在翻译</translation>
    </message>
    <message>
        <source>idle</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>stopping</source>
        <translation>正在停止</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>desktop-mt — English ⇄ 中文</source>
        <translation>desktop-mt — 英文 ⇄ 中文</translation>
    </message>
    <message>
        <source>Translate file</source>
        <translation>翻译文件</translation>
    </message>
    <message>
        <source>Translation copied</source>
        <translation>译文已复制</translation>
    </message>
    <message>
        <source>{state}: {detail}</source>
        <translation>{state}：{detail}</translation>
    </message>
    <message>
        <source>first token {ttft} · {rate} · {tokens} tokens</source>
        <translation>首个词元 {ttft} · {rate} · 共 {tokens} 个词元</translation>
    </message>
    <message>
        <source>About desktop-mt</source>
        <translation>关于 desktop-mt</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
</context>
<context>
    <name>MatchPanel</name>
    <message>
        <source>approved</source>
        <translation>已批准</translation>
    </message>
    <message>
        <source>imported</source>
        <translation>已导入</translation>
    </message>
    <message>
        <source>your edit</source>
        <translation>您的编辑</translation>
    </message>
    <message>
        <source>Use {number}</source>
        <translation>使用 {number}</translation>
    </message>
    <message>
        <source>Put this match&apos;s translation in place of the sentence&apos;s (Ctrl+{number})</source>
        <translation>用此匹配的译文替换该句的译文（Ctrl+{number}）</translation>
    </message>
    <message>
        <source>your earlier edit, not approved</source>
        <translation>您之前的编辑，未批准</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>记忆库</translation>
    </message>
</context>
<context>
    <name>Messages</name>
    <message numerus="yes">
        <source>%n segment(s)</source>
        <translation>
            <numerusform>%n 个句段</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n kept as they were</source>
        <translation>
            <numerusform>%n 个保持原样</numerusform>
        </translation>
    </message>
    <message>
        <source> ({why})</source>
        <translation>（{why}）</translation>
    </message>
    <message numerus="yes">
        <source>%n repeated (translated once)</source>
        <translation>
            <numerusform>%n 个重复（只翻译一次）</numerusform>
        </translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <source>; {note}</source>
        <translation>；{note}</translation>
    </message>
    <message>
        <source>choose another output folder</source>
        <translation>选择其他输出文件夹</translation>
    </message>
    <message>
        <source>then translate the file again</source>
        <translation>然后重新翻译该文件</translation>
    </message>
    <message>
        <source>the disk is full</source>
        <translation>磁盘已满</translation>
    </message>
    <message>
        <source>free space on {drive}, {then}</source>
        <translation>请释放 {drive} 上的空间，{then}</translation>
    </message>
    <message>
        <source>the disk quota is exceeded</source>
        <translation>超出磁盘配额</translation>
    </message>
    <message>
        <source>permission denied in the folder {folder}</source>
        <translation>没有文件夹 {folder} 的写入权限</translation>
    </message>
    <message>
        <source>{choose}, or make {folder} writable</source>
        <translation>请{choose}，或使 {folder} 可写</translation>
    </message>
    <message>
        <source>{folder} is on a read-only file system</source>
        <translation>{folder} 位于只读文件系统上</translation>
    </message>
    <message>
        <source>the folder {folder} does not exist</source>
        <translation>文件夹 {folder} 不存在</translation>
    </message>
    <message>
        <source>create it, or {choose}</source>
        <translation>请创建该文件夹，或{choose}</translation>
    </message>
    <message>
        <source>{path} is a file, not a folder</source>
        <translation>{path} 是文件，不是文件夹</translation>
    </message>
    <message>
        <source>a folder of that name is in the way</source>
        <translation>已有同名文件夹</translation>
    </message>
    <message>
        <source>remove or rename that folder, or {choose}</source>
        <translation>请删除或重命名该文件夹，或{choose}</translation>
    </message>
    <message>
        <source>check the disk, or {choose}</source>
        <translation>请检查磁盘，或{choose}</translation>
    </message>
    <message>
        <source>{journal}: cannot write the progress journal of {output}</source>
        <translation>{journal}：无法写入 {output} 的进度日志</translation>
    </message>
    <message>
        <source>{output}: cannot write the output</source>
        <translation>{output}：无法写入输出文件</translation>
    </message>
    <message>
        <source> ({kept} of {total} segments translated so far are saved in {journal})</source>
        <translation>（目前已翻译的 {kept}/{total} 个句段已保存在 {journal} 中）</translation>
    </message>
    <message>
        <source>{subject}: {reason}; {fix}{kept}</source>
        <translation>{subject}：{reason}；{fix}{kept}</translation>
    </message>
    <message>
        <source>English → Chinese</source>
        <translation>英文 → 中文</translation>
    </message>
    <message>
        <source>Chinese → English</source>
        <translation>中文 → 英文</translation>
    </message>
    <message>
        <source>English</source>
        <translation>英文</translation>
    </message>
    <message>
        <source>Chinese</source>
        <translation>中文</translation>
    </message>
    <message>
        <source>Japanese</source>
        <translation>日文</translation>
    </message>
    <message>
        <source>Korean</source>
        <translation>韩文</translation>
    </message>
    <message>
        <source>mixed: each sentence into the other language</source>
        <translation>混合：每个句子译为另一种语言</translation>
    </message>
    <message>
        <source>mixed</source>
        <translation>混合</translation>
    </message>
    <message>
        <source>{language}: left as it is</source>
        <translation>{language}：保持原样</translation>
    </message>
    <message>
        <source>{language}: already {language}, left as it is</source>
        <translation>{language}：已是{language}，保持原样</translation>
    </message>
    <message>
        <source>{language}: kept</source>
        <translation>{language}：保留</translation>
    </message>
    <message>
        <source>no {way} model is available; download {model} in File &gt; Models… (or with `desktop-mt models download {model}`)</source>
        <translation>没有可用的{way}模型；请在“文件 &gt; 模型…”中下载 {model}（或运行 `desktop-mt models download {model}`）</translation>
    </message>
    <message>
        <source>no {way} model is available; install one and choose it in File &gt; Models…</source>
        <translation>没有可用的{way}模型；请安装一个，并在“文件 &gt; 模型…”中选择它</translation>
    </message>
    <message>
        <source>{what} ({error}: {message}). Details are in the log file.</source>
        <translation>{what}（{error}：{message}）。详细信息见日志文件。</translation>
    </message>
    <message>
        <source>Global shortcuts need the desktop&apos;s GlobalShortcuts portal on Wayland (KDE Plasma 6, GNOME 48 or newer): apps may not grab keys there. Without it, bind `desktop-mt show` or `desktop-mt --clipboard` to a shortcut in the desktop&apos;s keyboard settings. </source>
        <translation>在 Wayland 上，全局快捷键需要桌面环境的 GlobalShortcuts 门户（KDE Plasma 6、GNOME 48 或更新版本）：程序无法在那里直接抓取按键。如果没有该门户，请在桌面环境的键盘设置中为 `desktop-mt show` 或 `desktop-mt --clipboard` 绑定快捷键。</translation>
    </message>
    <message>
        <source>Global shortcuts are unavailable: there is no X display (DISPLAY is not set). </source>
        <translation>全局快捷键不可用：没有 X 显示（未设置 DISPLAY）。</translation>
    </message>
    <message>
        <source>Use the in-app shortcut Ctrl+Shift+V or the tray icon&apos;s &quot;Translate clipboard&quot; instead.</source>
        <translation>请改用程序内快捷键 Ctrl+Shift+V 或托盘图标的“翻译剪贴板”。</translation>
    </message>
    <message>
        <source>{keys} is used by another program. Choose another shortcut in Settings.</source>
        <translation>{keys} 已被其他程序占用。请在设置中另选快捷键。</translation>
    </message>
    <message>
        <source>{keys} is already the shortcut for {action}.</source>
        <translation>{keys} 已是“{action}”的快捷键。</translation>
    </message>
    <message>
        <source>&apos;{keys}&apos; is not a key combination like Ctrl+Alt+E</source>
        <translation>“{keys}”不是 Ctrl+Alt+E 这样的组合键</translation>
    </message>
    <message>
        <source>&apos;{part}&apos; in &apos;{keys}&apos; is not a modifier (Ctrl, Alt, Shift, Meta)</source>
        <translation>“{keys}”中的“{part}”不是修饰键（Ctrl、Alt、Shift、Meta）</translation>
    </message>
    <message>
        <source>Unknown key &apos;{part}&apos; in &apos;{keys}&apos;</source>
        <translation>“{keys}”中的按键“{part}”无法识别</translation>
    </message>
    <message>
        <source>&apos;{keys}&apos; needs Ctrl, Alt or Meta (or a function key), or it would swallow normal typing</source>
        <translation>“{keys}”需要包含 Ctrl、Alt 或 Meta（或使用功能键），否则会吞掉正常输入</translation>
    </message>
</context>
<context>
    <name>ModelTable</name>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Languages</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Licence</source>
        <translation>许可证</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Other language pairs</source>
        <translation>其他语言对</translation>
    </message>
    <message>
        <source>Use for {direction}</source>
        <translation>用于{direction}</translation>
    </message>
    <message>
        <source>Use this model</source>
        <translation>使用此模型</translation>
    </message>
    <message>
        <source>{name} (demo)</source>
        <translation>{name}（演示）</translation>
    </message>
    <message>
        <source>Not installed</source>
        <translation>未安装</translation>
    </message>
    <message>
        <source>Active</source>
        <translation>使用中</translation>
    </message>
    <message>
        <source>Installed</source>
        <translation>已安装</translation>
    </message>
</context>
<context>
    <name>Models</name>
    <message>
        <source>Bundled: {model}</source>
        <translation>内置：{model}</translation>
    </message>
    <message>
        <source>bundled model</source>
        <translation>内置模型</translation>
    </message>
    <message>
        <source>Bundled model</source>
        <translation>内置模型</translation>
    </message>
</context>
<context>
    <name>ModelsDialog</name>
    <message>
        <source>int8 (faster, built at install)</source>
        <translation>int8（更快，安装时生成）</translation>
    </message>
    <message>
        <source>fp32 (full precision)</source>
        <translation>fp32（全精度）</translation>
    </message>
    <message>
        <source>Demo model: fine for short everyday sentences, not for real text.</source>
        <translation>演示模型：适合简短的日常句子，不适合正式文本。</translation>
    </message>
    <message>
        <source>Get the real model…</source>
        <translation>获取正式模型…</translation>
    </message>
    <message>
        <source>Open the Models dialog to download opus-mt-en-zh</source>
        <translation>打开“模型”对话框下载 opus-mt-en-zh</translation>
    </message>
    <message>
        <source>Models</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Download from:</source>
        <translation>下载来源：</translation>
    </message>
    <message>
        <source>Download</source>
        <translation>下载</translation>
    </message>
    <message>
        <source>Use this model</source>
        <translation>使用此模型</translation>
    </message>
    <message>
        <source>Make it the model of its direction, in the app and on the command line</source>
        <translation>设为该翻译方向的模型（应用和命令行均生效）</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Variant:</source>
        <translation>变体：</translation>
    </message>
    <message>
        <source>Cannot list the models: {error}</source>
        <translation>无法列出模型：{error}</translation>
    </message>
    <message>
        <source>Decoder layout: {layout}.</source>
        <translation>解码器布局：{layout}。</translation>
    </message>
    <message>
        <source>Bundled demo model</source>
        <translation>内置演示模型</translation>
    </message>
    <message>
        <source>Trained on short everyday sentences only; on real text (news, manuals, mail) its output is poor. Download a real model above.</source>
        <translation>仅用简短的日常句子训练；用于正式文本（新闻、手册、邮件）时译文质量很差。请在上方下载正式模型。</translation>
    </message>
    <message>
        <source>Remove model</source>
        <translation>删除模型</translation>
    </message>
    <message>
        <source>Delete the model {name} from this computer?</source>
        <translation>要从本机删除模型 {name} 吗？</translation>
    </message>
    <message>
        <source>Could not remove {name}: {error}</source>
        <translation>无法删除 {name}：{error}</translation>
    </message>
    <message>
        <source>Removed {name}.</source>
        <translation>已删除 {name}。</translation>
    </message>
    <message>
        <source>Could not use {model}: {error}</source>
        <translation>无法使用 {model}：{error}</translation>
    </message>
    <message>
        <source>First start…</source>
        <translation>首次使用…</translation>
    </message>
    <message>
        <source>The window&apos;s first-start page: both real models in one step, and offline help</source>
        <translation>窗口中的首次使用页面：一步下载两个方向的正式模型，以及离线安装说明</translation>
    </message>
</context>
<context>
    <name>OcrFeature</name>
    <message>
        <source>No text was found in the image.</source>
        <translation>图像中未找到文字。</translation>
    </message>
    <message>
        <source>Reading the image failed: {error}</source>
        <translation>读取图片失败：{error}</translation>
    </message>
    <message>
        <source>Translate screen region</source>
        <translation>翻译屏幕区域</translation>
    </message>
    <message>
        <source>Select a part of the screen and translate the text in it (from any application: Settings &gt; Global shortcuts)</source>
        <translation>框选屏幕的一部分并翻译其中的文字（在任何程序中均可：设置 &gt; 全局快捷键）</translation>
    </message>
    <message>
        <source>The screen could not be captured.</source>
        <translation>无法截取屏幕。</translation>
    </message>
    <message>
        <source>Reading the text in the image…</source>
        <translation>正在识别图像中的文字…</translation>
    </message>
    <message>
        <source>Read {count} line in {seconds} s</source>
        <translation>用 {seconds} 秒识别了 {count} 行</translation>
    </message>
    <message>
        <source>Read {count} lines in {seconds} s</source>
        <translation>用 {seconds} 秒识别了 {count} 行</translation>
    </message>
</context>
<context>
    <name>Pasting</name>
    <message>
        <source>Joined the line breaks of the pasted text (Ctrl+Z: the text as pasted).</source>
        <translation>已合并粘贴文本中的换行（Ctrl+Z：恢复为粘贴时的文本）。</translation>
    </message>
</context>
<context>
    <name>Popup</name>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Copy the translation</source>
        <translation>复制译文</translation>
    </message>
    <message>
        <source>Open in main window</source>
        <translation>在主窗口中打开</translation>
    </message>
    <message>
        <source>Translating…</source>
        <translation>正在翻译…</translation>
    </message>
    <message>
        <source>The clipboard holds no text to translate.</source>
        <translation>剪贴板中没有可翻译的文本。</translation>
    </message>
    <message>
        <source>Copied</source>
        <translation>已复制</translation>
    </message>
</context>
<context>
    <name>Portal</name>
    <message>
        <source>The desktop&apos;s screenshot portal failed: {error}</source>
        <translation>桌面环境的截图门户出错：{error}</translation>
    </message>
    <message>
        <source>The screenshot was cancelled.</source>
        <translation>截图已取消。</translation>
    </message>
    <message>
        <source>The desktop&apos;s screenshot portal gave no image.</source>
        <translation>桌面环境的截图门户没有返回图片。</translation>
    </message>
</context>
<context>
    <name>PostEdit</name>
    <message>
        <source>Nothing to approve: translate a text first.</source>
        <translation>没有可批准的内容：请先翻译文本。</translation>
    </message>
    <message>
        <source>The translation memory is not available: {why}</source>
        <translation>翻译记忆库不可用：{why}</translation>
    </message>
    <message>
        <source>Your translation of this sentence (kept when the text is translated again); the machine&apos;s: {machine}</source>
        <translation>您对此句的译文（重新翻译时保留）；机器译文：{machine}</translation>
    </message>
    <message>
        <source>From the translation memory (not sent to the model)</source>
        <translation>来自翻译记忆库（未发送给模型）</translation>
    </message>
    <message>
        <source>Confirmed: in the translation memory as approved (used as it is when the sentence comes again)</source>
        <translation>已确认：已作为已批准译文存入翻译记忆库（此句再次出现时直接使用）</translation>
    </message>
    <message>
        <source>Insert memory match {number}</source>
        <translation>插入记忆库匹配 {number}</translation>
    </message>
    <message>
        <source>Translation memory…</source>
        <translation>翻译记忆库…</translation>
    </message>
    <message>
        <source>Search, edit, import and export the translation memory (TMX)</source>
        <translation>搜索、编辑、导入和导出翻译记忆库（TMX）</translation>
    </message>
    <message numerus="yes">
        <source>%n sentence(s) without a glossary term (wavy underline)</source>
        <translation>
            <numerusform>%n 个句子缺少术语表术语（波浪下划线）</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n sentence(s) kept</source>
        <translation>
            <numerusform>保留了 %n 个句子</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n from the translation memory (underlined)</source>
        <translation>
            <numerusform>%n 个来自翻译记忆库（带下划线）</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n sentence(s) from the translation memory (underlined)</source>
        <translation>
            <numerusform>%n 个句子来自翻译记忆库（带下划线）</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n translated by the model</source>
        <translation>
            <numerusform>%n 个由模型翻译</numerusform>
        </translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
</context>
<context>
    <name>PostEditConfirm</name>
    <message>
        <source>Sentence confirmed ({done} of {total}): kept in the translation memory as approved</source>
        <translation>句子已确认（{done}/{total}）：已作为已批准译文存入翻译记忆库</translation>
    </message>
    <message>
        <source>This sentence is confirmed already ({done} of {total})</source>
        <translation>此句已确认（{done}/{total}）</translation>
    </message>
    <message>
        <source>Put the cursor in a translated sentence to confirm it.</source>
        <translation>请将光标置于已翻译的句子中以确认它。</translation>
    </message>
    <message>
        <source>Nothing to confirm: every sentence shown is confirmed.</source>
        <translation>没有需要确认的内容：显示的所有句子均已确认。</translation>
    </message>
    <message>
        <source>Confirm sentence</source>
        <translation>确认句子</translation>
    </message>
    <message>
        <source>Keep the sentence at the cursor in the translation memory as approved, then go to the next ({keys})</source>
        <translation>将光标所在句子作为已批准译文存入翻译记忆库，然后转到下一句（{keys}）</translation>
    </message>
    <message>
        <source>Confirm all sentences…</source>
        <translation>确认所有句子…</translation>
    </message>
    <message>
        <source>Confirm every sentence shown, after saying how many are unreviewed</source>
        <translation>确认显示的每个句子（先告知有多少句尚未审校）</translation>
    </message>
    <message>
        <source>Undo confirm all</source>
        <translation>撤销全部确认</translation>
    </message>
    <message numerus="yes">
        <source>%n sentence(s) confirmed; Edit &gt; Undo confirm all takes them back</source>
        <translation>
            <numerusform>已确认 %n 个句子；“编辑 &gt; 撤销全部确认”可将其撤回</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>

%n of them are the machine&apos;s translation, not reviewed.</source>
        <translation>
            <numerusform>

其中 %n 句是未经审校的机器译文。</numerusform>
        </translation>
    </message>
    <message>
        <source>Confirm all sentences</source>
        <translation>确认所有句子</translation>
    </message>
    <message numerus="yes">
        <source>Confirm %n sentence(s)? Each goes into the translation memory as approved, and is then used as it is wherever the sentence comes again.</source>
        <translation>
            <numerusform>确认 %n 个句子？每句都将作为已批准译文存入翻译记忆库，此后该句再次出现时将直接使用。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Confirm all undone: %n sentence(s) back as they were in the translation memory</source>
        <translation>
            <numerusform>已撤销全部确认：%n 个句子在翻译记忆库中恢复原状</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Progress</name>
    <message>
        <source>— stopped here —</source>
        <translation>— 已在此处停止 —</translation>
    </message>
    <message numerus="yes">
        <source>{done} of %n sentence(s)</source>
        <translation>
            <numerusform>{done}/%n 个句子</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>{done} of %n sentence(s) translated</source>
        <translation>
            <numerusform>已翻译 {done}/%n 个句子</numerusform>
        </translation>
    </message>
    <message>
        <source>the translation is incomplete</source>
        <translation>译文不完整</translation>
    </message>
    <message numerus="yes">
        <source>all %n sentence(s) translated</source>
        <translation>
            <numerusform>已翻译全部 %n 个句子</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Quitting</name>
    <message>
        <source>Nothing runs any more.</source>
        <translation>已没有正在运行的任务。</translation>
    </message>
    <message>
        <source>Quit anyway?</source>
        <translation>仍要退出吗？</translation>
    </message>
    <message>
        <source>Quit desktop-mt?</source>
        <translation>退出 desktop-mt？</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <source>Keep running</source>
        <translation>继续运行</translation>
    </message>
    <message>
        <source>A translation is running; the part translated so far is kept.</source>
        <translation>正在翻译；已翻译的部分会保留。</translation>
    </message>
    <message>
        <source> ({done} of {total} segments done)</source>
        <translation>（已完成 {done}/{total} 个句段）</translation>
    </message>
    <message>
        <source>{name} is being translated{done}. What is done is kept, and desktop-mt offers to continue it when it starts again.</source>
        <translation>正在翻译 {name}{done}。已完成的部分会保留，desktop-mt 下次启动时会提示继续翻译。</translation>
    </message>
    <message>
        <source>{name} is being added as a model; quitting stops that, and it can be added again later.</source>
        <translation>正在将 {name} 添加为模型；退出会中止添加，之后可以重新添加。</translation>
    </message>
</context>
<context>
    <name>RegionOverlay</name>
    <message>
        <source>Drag over the text to translate  ·  Esc cancels</source>
        <translation>拖动框选要翻译的文字  ·  Esc 取消</translation>
    </message>
    <message>
        <source>desktop-mt: select a region</source>
        <translation>desktop-mt：选择区域</translation>
    </message>
</context>
<context>
    <name>Replace</name>
    <message>
        <source>Translate and replace: no text is selected. Select some text first.</source>
        <translation>翻译并替换：未选中任何文本。请先选中文本。</translation>
    </message>
    <message>
        <source>nothing to translate; left as it is</source>
        <translation>没有需要翻译的内容；保持原样</translation>
    </message>
    <message>
        <source>Translate and replace: {why}.</source>
        <translation>翻译并替换：{why}。</translation>
    </message>
    <message>
        <source>Translate and replace is unavailable here.</source>
        <translation>此处无法使用翻译并替换。</translation>
    </message>
    <message>
        <source>Translate and replace: {error}</source>
        <translation>翻译并替换：{error}</translation>
    </message>
    <message>
        <source>Translating the selection…</source>
        <translation>正在翻译选中的文本…</translation>
    </message>
    <message>
        <source>Translate and replace: the translation failed. {error}</source>
        <translation>翻译并替换：翻译失败。{error}</translation>
    </message>
    <message>
        <source>Translate and replace was cancelled; nothing was pasted.</source>
        <translation>翻译并替换已取消；未粘贴任何内容。</translation>
    </message>
    <message>
        <source>Translate and replace: the translation came out empty.</source>
        <translation>翻译并替换：译文为空。</translation>
    </message>
    <message>
        <source>Replaced the selection with its translation; the clipboard holds what it held before.</source>
        <translation>已用译文替换选中的文本；剪贴板内容保持不变。</translation>
    </message>
    <message>
        <source>No hotkey layer.</source>
        <translation>没有全局快捷键层。</translation>
    </message>
    <message>
        <source>Translate and replace is off (no hotkey set).</source>
        <translation>翻译并替换已关闭（未设置快捷键）。</translation>
    </message>
    <message>
        <source>The translate-and-replace hotkey {keys} is the clipboard hotkey too; choose another one in Settings.</source>
        <translation>翻译并替换的快捷键 {keys} 同时也是剪贴板快捷键；请在设置中另选一个。</translation>
    </message>
</context>
<context>
    <name>RequestResults</name>
    <message>
        <source>translation failed</source>
        <translation>翻译失败</translation>
    </message>
    <message>
        <source>Translation failed</source>
        <translation>翻译失败</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Simplified (简体)</source>
        <translation>简体</translation>
    </message>
    <message>
        <source>Traditional, Taiwan (繁體)</source>
        <translation>繁体（台湾）</translation>
    </message>
    <message>
        <source>Traditional, Hong Kong (繁體)</source>
        <translation>繁体（香港）</translation>
    </message>
    <message>
        <source>faster (shows every word as it comes)</source>
        <translation>更快（逐词显示）</translation>
    </message>
    <message>
        <source>better (the model&apos;s default)</source>
        <translation>更好（模型默认）</translation>
    </message>
    <message>
        <source>desktop-mt settings</source>
        <translation>desktop-mt 设置</translation>
    </message>
    <message>
        <source>Each English term found in the text is translated as its Chinese term, and each Chinese term as its English one (also in file jobs)</source>
        <translation>文本中出现的每个英文术语都译为其中文术语，每个中文术语都译为其英文术语（文件翻译任务中同样适用）</translation>
    </message>
    <message>
        <source>Glossary:</source>
        <translation>术语表：</translation>
    </message>
    <message>
        <source>Log file (never contains your text): {path}</source>
        <translation>日志文件（从不包含您的文本）：{path}</translation>
    </message>
    <message>
        <source>Use all processor cores (automatic)</source>
        <translation>使用全部处理器核心（自动）</translation>
    </message>
    <message>
        <source>Use </source>
        <translation>使用 </translation>
    </message>
    <message>
        <source>Model default</source>
        <translation>模型默认</translation>
    </message>
    <message>
        <source> tokens</source>
        <translation> 个词元</translation>
    </message>
    <message>
        <source>custom ({n} candidates per word)</source>
        <translation>自定义（每个词 {n} 个候选）</translation>
    </message>
    <message>
        <source>Faster: one candidate per word; the translation appears word by word. Better: the model weighs several candidates (4 for the bundled model) and shows a sentence when it is sure of it.</source>
        <translation>更快：每个词只取一个候选，译文逐词出现。更好：模型权衡多个候选（内置模型为 4 个），确定后整句显示。</translation>
    </message>
    <message>
        <source>Traditional is converted from the Simplified output with OpenCC (phrase level: Taiwan or Hong Kong usage).</source>
        <translation>繁体由 OpenCC 从简体输出转换而来（词组级别：台湾或香港用语）。</translation>
    </message>
    <message>
        <source>How many processor cores one translation may use. Automatic uses all of them; fewer leaves room for other programs.</source>
        <translation>一次翻译可使用的处理器核心数。“自动”使用全部核心；设得少一些可为其他程序留出余量。</translation>
    </message>
    <message>
        <source>Stop a sentence&apos;s translation after this many tokens (about one Chinese character each). Model default: 3 x the source&apos;s length + 10.</source>
        <translation>单句译文达到此词元数（约一个汉字一个）后停止。模型默认值：原文长度 × 3 + 10。</translation>
    </message>
    <message>
        <source>Speed:</source>
        <translation>速度：</translation>
    </message>
    <message>
        <source>Quality:</source>
        <translation>质量：</translation>
    </message>
    <message>
        <source>Longest translation of a sentence:</source>
        <translation>单句译文最大长度：</translation>
    </message>
    <message>
        <source>Chinese script:</source>
        <translation>中文字形：</translation>
    </message>
    <message>
        <source>System</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>System: Chinese for any Chinese system locale, else English</source>
        <translation>跟随系统：系统区域为任一中文时显示中文，否则显示英文</translation>
    </message>
    <message>
        <source>Takes effect the next time desktop-mt starts.</source>
        <translation>下次启动 desktop-mt 时生效。</translation>
    </message>
    <message>
        <source>Interface language:</source>
        <translation>界面语言：</translation>
    </message>
    <message>
        <source> processor core</source>
        <translation> 个处理器核心</translation>
    </message>
    <message>
        <source> processor cores</source>
        <translation> 个处理器核心</translation>
    </message>
    <message>
        <source>Translate as you type</source>
        <translation>边输入边翻译</translation>
    </message>
    <message>
        <source>Default: {keys}</source>
        <translation>默认：{keys}</translation>
    </message>
    <message>
        <source>Closing the window keeps desktop-mt running in the tray</source>
        <translation>关闭窗口后 desktop-mt 继续在托盘中运行</translation>
    </message>
    <message>
        <source>The hotkey and the tray icon keep working; quit with Ctrl+Q or the tray menu. Only where the desktop shows tray icons.</source>
        <translation>快捷键和托盘图标仍然有效；按 Ctrl+Q 或通过托盘菜单退出。仅在桌面显示托盘图标时可用。</translation>
    </message>
    <message>
        <source>Use the PRIMARY selection (X11: the text you selected)</source>
        <translation>使用 PRIMARY 选区（X11：您选中的文本）</translation>
    </message>
    <message>
        <source>the main window</source>
        <translation>主窗口</translation>
    </message>
    <message>
        <source>a small popup at the mouse pointer</source>
        <translation>鼠标指针处的小弹窗</translation>
    </message>
    <message>
        <source>The hotkey shows the translation in:</source>
        <translation>快捷键将译文显示在：</translation>
    </message>
    <message>
        <source>Keep a history of translations (View &gt; History)</source>
        <translation>保留翻译历史（视图 &gt; 历史记录）</translation>
    </message>
    <message>
        <source>Finished translations are kept on this computer only; off: nothing new is written.</source>
        <translation>完成的翻译仅保存在本机；关闭后不再写入新记录。</translation>
    </message>
    <message>
        <source> A change takes effect when desktop-mt starts again.</source>
        <translation> 更改在 desktop-mt 下次启动时生效。</translation>
    </message>
</context>
<context>
    <name>SettingsSections</name>
    <message>
        <source>faster (int8)</source>
        <translation>更快（int8）</translation>
    </message>
    <message>
        <source>exact (fp32)</source>
        <translation>精确（fp32）</translation>
    </message>
    <message>
        <source>Add model folder…</source>
        <translation>添加模型文件夹…</translation>
    </message>
    <message>
        <source>{direction}:</source>
        <translation>{direction}：</translation>
    </message>
    <message>
        <source>Models placed in {folder} are listed too (File &gt; Models… downloads more).</source>
        <translation>放在 {folder} 中的模型也会列出（“文件 &gt; 模型…”可下载更多）。</translation>
    </message>
    <message>
        <source>Faster (int8): compressed weights, about twice as fast on most CPUs, output very close to exact. Exact (fp32): the model&apos;s full-precision weights, slower, twice the memory.</source>
        <translation>更快（int8）：压缩权重，在多数 CPU 上约快一倍，输出与精确版非常接近。精确（fp32）：模型的全精度权重，较慢，内存占用翻倍。</translation>
    </message>
    <message>
        <source>Model precision:</source>
        <translation>模型精度：</translation>
    </message>
    <message>
        <source>{name} (not found)</source>
        <translation>{name}（未找到）</translation>
    </message>
    <message>
        <source>Choose an exported model folder</source>
        <translation>选择导出的模型文件夹</translation>
    </message>
    <message>
        <source>Cannot use {folder}: {error}</source>
        <translation>无法使用 {folder}：{error}</translation>
    </message>
    <message>
        <source>{folder} was added before, as {model} (selected), kept in its downloaded layout (slower): the fast layout could not be built ({why}).</source>
        <translation>{folder} 之前已添加为 {model}（已选中），保留下载时的布局（较慢）：无法生成快速布局（{why}）。</translation>
    </message>
    <message>
        <source>{folder} was added before, as {model}: selected it.</source>
        <translation>{folder} 之前已添加为 {model}：已选中。</translation>
    </message>
    <message>
        <source>Adding {folder}: building its fast int8 layout from the fp32 weights (about a minute for a full-size model) into {root}. It is selected here when ready; if you close this dialog meanwhile, it is listed the next time you open Settings.</source>
        <translation>正在添加 {folder}：正在从 fp32 权重生成快速 int8 布局（完整模型约需一分钟），保存到 {root}。完成后会在此处选中；如果期间关闭此对话框，下次打开设置时会列出该模型。</translation>
    </message>
    <message>
        <source>The previous model folder</source>
        <translation>上一个模型文件夹</translation>
    </message>
    <message>
        <source>{what} is still being added. Add another folder when it is done; open Settings again then to choose the model it makes (or to see why it could not be added).</source>
        <translation>{what} 仍在添加中。请在完成后再添加其他文件夹；届时重新打开设置即可选择生成的模型（或查看无法添加的原因）。</translation>
    </message>
    <message>
        <source>Added {folder}, kept in its downloaded layout (slower): the fast layout could not be built ({why}).</source>
        <translation>已添加 {folder}，保留下载时的布局（较慢）：无法生成快速布局（{why}）。</translation>
    </message>
    <message>
        <source> (kept in its downloaded layout: slower)</source>
        <translation>（保留下载时的布局：较慢）</translation>
    </message>
    <message>
        <source>{folder} was added as the model {model}{slow}: choose it in its direction&apos;s row.</source>
        <translation>{folder} 已添加为模型 {model}{slow}：请在对应翻译方向的一行中选择它。</translation>
    </message>
    <message>
        <source>Cannot use {name} for {direction}: {error}</source>
        <translation>无法将 {name} 用于{direction}：{error}</translation>
    </message>
    <message>
        <source>None bundled (File &gt; Models… downloads one)</source>
        <translation>无内置模型（可通过“文件 &gt; 模型…”下载）</translation>
    </message>
    <message>
        <source>Local API (for Pot, Easydict, Bob, browser extensions...)</source>
        <translation>本地 API（供 Pot、Easydict、Bob、浏览器扩展等使用）</translation>
    </message>
    <message>
        <source>Serve this model to other programs on this computer: LibreTranslate, DeepL, DeepLX and OpenAI-compatible requests on http://127.0.0.1 (never the network). Uses a second copy of the model in memory.</source>
        <translation>为本机其他程序提供此模型的翻译服务：在 http://127.0.0.1 上接受兼容 LibreTranslate、DeepL、DeepLX 和 OpenAI 的请求（绝不对外网开放）。会在内存中另加载一份模型。</translation>
    </message>
    <message>
        <source>Local API port:</source>
        <translation>本地 API 端口：</translation>
    </message>
    <message>
        <source>optional: programs must then send this key</source>
        <translation>可选：设置后程序必须发送此密钥</translation>
    </message>
    <message>
        <source>Local API key:</source>
        <translation>本地 API 密钥：</translation>
    </message>
    <message>
        <source>Off.</source>
        <translation>已关闭。</translation>
    </message>
    <message>
        <source>Global shortcuts (from any application)</source>
        <translation>全局快捷键（在任何程序中有效）</translation>
    </message>
    <message>
        <source> Empty: off.</source>
        <translation> 留空：关闭。</translation>
    </message>
    <message>
        <source>{action}:</source>
        <translation>{action}：</translation>
    </message>
    <message>
        <source>Translate selection copies the selected text for you</source>
        <translation>“翻译选中文本”时自动复制选中的文本</translation>
    </message>
    <message>
        <source>Presses Ctrl+C / Cmd+C in the application in front, then puts your clipboard back; off: Translate selection translates the clipboard.</source>
        <translation>在前台程序中按 Ctrl+C / Cmd+C，之后恢复您的剪贴板；关闭时“翻译选中文本”翻译剪贴板内容。</translation>
    </message>
</context>
<context>
    <name>Shortcuts</name>
    <message>
        <source>Translate and replace</source>
        <translation>翻译并替换</translation>
    </message>
    <message>
        <source>Translate clipboard</source>
        <translation>翻译剪贴板</translation>
    </message>
    <message>
        <source>Translate the text on the clipboard, from any application.</source>
        <translation>在任何程序中翻译剪贴板中的文本。</translation>
    </message>
    <message>
        <source>Translate selection</source>
        <translation>翻译选中文本</translation>
    </message>
    <message>
        <source>Translate the text selected in any application (X11: the PRIMARY selection, the clipboard untouched; elsewhere the clipboard).</source>
        <translation>翻译在任何程序中选中的文本（X11：PRIMARY 选区，不改动剪贴板；其他平台：剪贴板）。</translation>
    </message>
    <message>
        <source> and </source>
        <translation>和</translation>
    </message>
    <message>
        <source>{keys} is the shortcut of both {names}: choose another for one of them.</source>
        <translation>{keys} 同时是{names}的快捷键：请为其中之一另选快捷键。</translation>
    </message>
    <message>
        <source>Unavailable: this run has no global shortcut layer.</source>
        <translation>不可用：本次运行没有全局快捷键层。</translation>
    </message>
    <message>
        <source>Unavailable: {why}</source>
        <translation>不可用：{why}</translation>
    </message>
    <message>
        <source>Off.</source>
        <translation>已关闭。</translation>
    </message>
    <message>
        <source>Not active: the desktop has not bound {keys} (confirm it in the desktop&apos;s dialog; if it was refused, choose the keys in the desktop&apos;s shortcut settings).</source>
        <translation>未启用：桌面环境尚未绑定 {keys}（请在桌面环境的对话框中确认；如果被拒绝，请在桌面环境的快捷键设置中选择按键）。</translation>
    </message>
    <message>
        <source>Active: the desktop bound it to {keys}; it works from any application.</source>
        <translation>已启用：桌面环境已将其绑定到 {keys}；在任何程序中均有效。</translation>
    </message>
    <message>
        <source>Active: {keys} works from any application.{note}</source>
        <translation>已启用：{keys} 在任何程序中均有效。{note}</translation>
    </message>
    <message>
        <source>not registered yet.</source>
        <translation>尚未注册。</translation>
    </message>
    <message>
        <source>Not active: {why}</source>
        <translation>未启用：{why}</translation>
    </message>
    <message>
        <source>Translate selection: {why}</source>
        <translation>翻译选中文本：{why}</translation>
    </message>
    <message>
        <source>No text was selected to translate.</source>
        <translation>未选中要翻译的文本。</translation>
    </message>
    <message>
        <source>Translate screen region</source>
        <translation>翻译屏幕区域</translation>
    </message>
    <message>
        <source>Select a part of the screen and translate the text in it.</source>
        <translation>选择屏幕上的一块区域并翻译其中的文字。</translation>
    </message>
    <message>
        <source>Show the window</source>
        <translation>显示窗口</translation>
    </message>
    <message>
        <source>Bring the desktop-mt window forward.</source>
        <translation>将 desktop-mt 窗口调到前台。</translation>
    </message>
    <message>
        <source>Select text in any application and press this: the text is replaced by its translation (English into Chinese, Chinese into English).</source>
        <translation>在任何程序中选中文本后按此快捷键：文本将被替换为译文（英文译为中文，中文译为英文）。</translation>
    </message>
</context>
<context>
    <name>Stale</name>
    <message>
        <source>Ctrl+Z brought back an earlier text; Ctrl+Enter translates it.</source>
        <translation>Ctrl+Z 恢复了之前的文本；按 Ctrl+Enter 翻译。</translation>
    </message>
</context>
<context>
    <name>TMDialog</name>
    <message>
        <source>Translation memory</source>
        <translation>翻译记忆库</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Forget the selected entries (Del)</source>
        <translation>删除所选条目（Del）</translation>
    </message>
    <message>
        <source>Import TMX…</source>
        <translation>导入 TMX…</translation>
    </message>
    <message>
        <source>Add a TMX file&apos;s sentence pairs (Trados, memoQ, OmegaT...) to this direction</source>
        <translation>将 TMX 文件中的句对（Trados、memoQ、OmegaT 等）添加到此翻译方向</translation>
    </message>
    <message>
        <source>Export TMX…</source>
        <translation>导出 TMX…</translation>
    </message>
    <message>
        <source>Write this direction&apos;s entries to a TMX 1.4b file</source>
        <translation>将此翻译方向的条目写入 TMX 1.4b 文件</translation>
    </message>
    <message>
        <source>Fuzzy search needs {package} (the &apos;tm&apos; extra): {error}</source>
        <translation>模糊搜索需要 {package}（“tm”附加组件）：{error}</translation>
    </message>
    <message>
        <source>Cannot read the translation memory: {error}</source>
        <translation>无法读取翻译记忆库：{error}</translation>
    </message>
    <message>
        <source>the entry is no longer in the memory</source>
        <translation>该条目已不在翻译记忆库中</translation>
    </message>
    <message>
        <source>Not changed: {reason}.</source>
        <translation>未更改：{reason}。</translation>
    </message>
    <message>
        <source>Delete from the memory?</source>
        <translation>从翻译记忆库中删除？</translation>
    </message>
    <message>
        <source>Forget {count} entry of the translation memory? This cannot be undone.</source>
        <translation>要删除翻译记忆库中的 {count} 个条目吗？此操作无法撤销。</translation>
    </message>
    <message>
        <source>Forget {count} entries of the translation memory? This cannot be undone.</source>
        <translation>要删除翻译记忆库中的 {count} 个条目吗？此操作无法撤销。</translation>
    </message>
    <message>
        <source>Cannot delete: {error}</source>
        <translation>无法删除：{error}</translation>
    </message>
    <message>
        <source>Import a TMX file</source>
        <translation>导入 TMX 文件</translation>
    </message>
    <message>
        <source>Export the translation memory</source>
        <translation>导出翻译记忆库</translation>
    </message>
    <message>
        <source>Imported {file} into {direction}: {report}.</source>
        <translation>已将 {file} 导入 {direction}：{report}。</translation>
    </message>
    <message>
        <source>Exported {count} entries ({direction}) to {file}.</source>
        <translation>已将 {count} 个条目（{direction}）导出到 {file}。</translation>
    </message>
    <message>
        <source> (the first {shown} shown; type to narrow)</source>
        <translation>（仅显示前 {shown} 个；输入以缩小范围）</translation>
    </message>
    <message>
        <source>No entry like “{query}”.</source>
        <translation>没有与“{query}”相似的条目。</translation>
    </message>
    <message>
        <source>No entry with “{query}”.</source>
        <translation>没有包含“{query}”的条目。</translation>
    </message>
    <message>
        <source>{shown} of {total} entries like “{query}”{more}</source>
        <translation>{total} 个条目中有 {shown} 个与“{query}”相似{more}</translation>
    </message>
    <message>
        <source>{shown} of {total} entries with “{query}”{more}</source>
        <translation>{total} 个条目中有 {shown} 个包含“{query}”{more}</translation>
    </message>
    <message>
        <source>{total} entries{more} · {other}</source>
        <translation>{total} 个条目{more} · {other}</translation>
    </message>
    <message>
        <source>No entries in {direction} yet ({other}). Edited and approved sentences come here; Import TMX adds a CAT tool&apos;s memory.</source>
        <translation>{direction} 中还没有条目（{other}）。编辑并确认的句子会存入这里；“导入 TMX”可添加 CAT 工具的翻译记忆库。</translation>
    </message>
</context>
<context>
    <name>TMFiles</name>
    <message>
        <source>TMX files (*.tmx);;All files (*)</source>
        <translation>TMX 文件 (*.tmx);;所有文件 (*)</translation>
    </message>
    <message>
        <source>TMX needs translate-toolkit (the &apos;tm&apos; extra)</source>
        <translation>TMX 需要 translate-toolkit（“tm”附加组件）</translation>
    </message>
    <message>
        <source>Cannot import the TMX file</source>
        <translation>无法导入 TMX 文件</translation>
    </message>
    <message>
        <source>Cannot export the translation memory</source>
        <translation>无法导出翻译记忆库</translation>
    </message>
    <message>
        <source>{file}: {error}. Nothing was imported.</source>
        <translation>{file}：{error}。未导入任何内容。</translation>
    </message>
</context>
<context>
    <name>TMSearchBar</name>
    <message>
        <source>Source and translation</source>
        <translation>原文和译文</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>原文</translation>
    </message>
    <message>
        <source>Translation</source>
        <translation>译文</translation>
    </message>
    <message>
        <source>Search the memory…</source>
        <translation>搜索翻译记忆库…</translation>
    </message>
    <message>
        <source>Fuzzy</source>
        <translation>模糊匹配</translation>
    </message>
    <message>
        <source>Find text like the search, typos and all (at least {percent}% alike), best match first</source>
        <translation>查找与搜索内容相似的文本（允许拼写错误，相似度至少 {percent}%），最佳匹配排在最前</translation>
    </message>
    <message>
        <source>Direction:</source>
        <translation>翻译方向：</translation>
    </message>
    <message>
        <source>in</source>
        <translation>范围</translation>
    </message>
</context>
<context>
    <name>Tray</name>
    <message>
        <source>Translate clipboard</source>
        <translation>翻译剪贴板</translation>
    </message>
    <message>
        <source>Show/Hide window</source>
        <translation>显示/隐藏窗口</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
</context>
<context>
    <name>WindowChrome</name>
    <message>
        <source>Documents ({documents});;Images: read and translate the text (*.png *.jpg *.jpeg *.webp *.bmp *.gif *.tif *.tiff);;All files (*)</source>
        <translation>文档 ({documents});;图片：识别并翻译其中的文字 (*.png *.jpg *.jpeg *.webp *.bmp *.gif *.tif *.tiff);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Translate the source text</source>
        <translation>翻译原文</translation>
    </message>
    <message>
        <source>Stop the translation</source>
        <translation>停止翻译</translation>
    </message>
    <message>
        <source>Translate the clipboard</source>
        <translation>翻译剪贴板</translation>
    </message>
    <message>
        <source>Translate a file</source>
        <translation>翻译文件</translation>
    </message>
    <message>
        <source>Ctrl+Z / Ctrl+Shift+Z or Ctrl+Y</source>
        <translation>Ctrl+Z / Ctrl+Shift+Z 或 Ctrl+Y</translation>
    </message>
    <message>
        <source>Undo / redo in the source text (also after Clear, a clipboard translation or joined lines: the text as pasted)</source>
        <translation>在原文中撤销/重做（清空、翻译剪贴板或合并行之后也可以：恢复粘贴时的文本）</translation>
    </message>
    <message>
        <source>Move between the source, the translation and the toolbar</source>
        <translation>在原文、译文和工具栏之间移动</translation>
    </message>
    <message>
        <source>Copy the translation</source>
        <translation>复制译文</translation>
    </message>
    <message>
        <source>Swap: the translation becomes the source, the direction flips</source>
        <translation>互换：译文变为原文，翻译方向对调</translation>
    </message>
    <message>
        <source>Clear both panes (Ctrl+Z brings the text back)</source>
        <translation>清空两个窗格（Ctrl+Z 可恢复文本）</translation>
    </message>
    <message>
        <source>Larger / smaller / default text size</source>
        <translation>放大/缩小/默认字号</translation>
    </message>
    <message>
        <source>History of translations (search as you type)</source>
        <translation>翻译历史（输入即搜索）</translation>
    </message>
    <message>
        <source>Alternatives for the sentence under the cursor (Ctrl+Z in the translation undoes)</source>
        <translation>光标所在句子的备选译文（在译文中按 Ctrl+Z 撤销）</translation>
    </message>
    <message>
        <source>Click a word</source>
        <translation>单击某个词</translation>
    </message>
    <message>
        <source>In the translation: the cursor goes there; alternatives from that word on are offered beside it (typing dismisses them)</source>
        <translation>在译文中：光标移到该处，旁边列出从该词起的备选译文（继续输入即关闭）</translation>
    </message>
    <message>
        <source>In the translation: alternatives from the word at the cursor, as a keyboard menu</source>
        <translation>在译文中：以键盘菜单列出从光标处词语起的备选译文</translation>
    </message>
    <message>
        <source>In the translation, while a completion is offered: accept / dismiss it</source>
        <translation>在译文中出现补全建议时：接受/忽略</translation>
    </message>
    <message>
        <source>Put the translation memory&apos;s match 1, 2 or 3 (the panel under the panes) in place of the sentence&apos;s; Tab from the translation reaches their Use buttons</source>
        <translation>用翻译记忆库的第 1、2 或 3 条匹配（窗格下方的面板）替换该句译文；从译文按 Tab 可到达其“使用”按钮</translation>
    </message>
    <message>
        <source>Confirm the sentence at the cursor: it goes into the translation memory as approved; the cursor moves to the next sentence (Edit &gt; Confirm all sentences… asks first and can be undone)</source>
        <translation>确认光标所在句子：作为已批准译文存入翻译记忆库，光标移到下一句（“编辑 &gt; 确认所有句子…”会先询问，且可撤销）</translation>
    </message>
    <message>
        <source>Quit (closing the window keeps the app in the tray)</source>
        <translation>退出（关闭窗口时程序保留在托盘中）</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Stop the file job (nothing is saved)</source>
        <translation>停止文件翻译任务（不保存任何内容）</translation>
    </message>
    <message>
        <source>Translating {name}</source>
        <translation>正在翻译 {name}</translation>
    </message>
    <message>
        <source>{done}/{total} segments · {rate} seg/s</source>
        <translation>{done}/{total} 个句段 · 每秒 {rate} 个句段</translation>
    </message>
    <message>
        <source>More: the commands that do not fit</source>
        <translation>更多：放不下的命令</translation>
    </message>
    <message>
        <source>Direction</source>
        <translation>翻译方向</translation>
    </message>
    <message>
        <source>Type or paste English or Chinese text (输入英文或中文). Ctrl+Enter translates, Esc stops.</source>
        <translation>输入或粘贴英文或中文文本。按 Ctrl+Enter 翻译，按 Esc 停止。</translation>
    </message>
    <message>
        <source>The translation appears here as it is written · 译文会在这里逐字出现。</source>
        <translation>译文会在这里逐字出现。</translation>
    </message>
    <message>
        <source>Translate</source>
        <translation>翻译</translation>
    </message>
    <message>
        <source>Translate (Ctrl+Enter)</source>
        <translation>翻译（Ctrl+Enter）</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Stop (Esc)</source>
        <translation>停止（Esc）</translation>
    </message>
    <message>
        <source>Copy translation</source>
        <translation>复制译文</translation>
    </message>
    <message>
        <source>Copy the translation (Ctrl+Shift+C)</source>
        <translation>复制译文（Ctrl+Shift+C）</translation>
    </message>
    <message>
        <source>Clear</source>
        <translation>清空</translation>
    </message>
    <message>
        <source>Translate clipboard</source>
        <translation>翻译剪贴板</translation>
    </message>
    <message>
        <source>Translate the clipboard ({keys})</source>
        <translation>翻译剪贴板（{keys}）</translation>
    </message>
    <message>
        <source>Settings…</source>
        <translation>设置…</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Translate file…</source>
        <translation>翻译文件…</translation>
    </message>
    <message>
        <source>Translate a document: text, subtitles, Word, PowerPoint, Excel, PDF, XLIFF, PO, Markdown or HTML (or drop one on the window)</source>
        <translation>翻译文档：文本、字幕、Word、PowerPoint、Excel、PDF、XLIFF、PO、Markdown 或 HTML（也可拖放到窗口上）</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <source>Quit desktop-mt (Ctrl+Q)</source>
        <translation>退出 desktop-mt（Ctrl+Q）</translation>
    </message>
    <message>
        <source>Swap languages</source>
        <translation>互换语言</translation>
    </message>
    <message>
        <source>The translation becomes the source and the direction flips ({keys})</source>
        <translation>译文变为原文，翻译方向对调（{keys}）</translation>
    </message>
    <message>
        <source>Main toolbar</source>
        <translation>主工具栏</translation>
    </message>
    <message>
        <source>No model</source>
        <translation>无模型</translation>
    </message>
</context>
<context>
    <name>WindowFiles</name>
    <message>
        <source>(none yet)</source>
        <translation>（暂无）</translation>
    </message>
    <message>
        <source>The translation exists</source>
        <translation>译文已存在</translation>
    </message>
    <message>
        <source>{name} already exists in {folder}.

Replace it, or keep it and save the new translation as {other}?</source>
        <translation>{folder} 中已存在 {name}。

要替换它，还是保留它并将新译文另存为 {other}？</translation>
    </message>
    <message>
        <source>Keep both</source>
        <translation>保留两者</translation>
    </message>
    <message>
        <source>Replace</source>
        <translation>替换</translation>
    </message>
    <message>
        <source>Continue the interrupted translation?</source>
        <translation>继续中断的翻译？</translation>
    </message>
    <message>
        <source>An earlier translation of {name} stopped with {kept} of {total} segments done. Continue from there, or start over?</source>
        <translation>之前对 {name} 的翻译在完成 {total} 个句段中的 {kept} 个后停止了。要从中断处继续，还是重新开始？</translation>
    </message>
    <message>
        <source>Continue</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Start over</source>
        <translation>重新开始</translation>
    </message>
</context>
<context>
    <name>WindowMenus</name>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>Recent files</source>
        <translation>最近的文件</translation>
    </message>
    <message>
        <source>Models…</source>
        <translation>模型…</translation>
    </message>
    <message>
        <source>Download, remove and choose translation models</source>
        <translation>下载、删除和选择翻译模型</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>Undo in the source text</source>
        <translation>在原文中撤销</translation>
    </message>
    <message>
        <source>Redo</source>
        <translation>重做</translation>
    </message>
    <message>
        <source>Redo in the source text</source>
        <translation>在原文中重做</translation>
    </message>
    <message>
        <source>Redo in the source text ({keys})</source>
        <translation>在原文中重做（{keys}）</translation>
    </message>
    <message>
        <source>Select all</source>
        <translation>全选</translation>
    </message>
    <message>
        <source>Select the whole source text</source>
        <translation>选中全部原文</translation>
    </message>
    <message>
        <source>Join lines on paste</source>
        <translation>粘贴时合并行</translation>
    </message>
    <message>
        <source>Join the line breaks of text copied from PDFs when it is pasted (Ctrl+Z brings back the text as pasted)</source>
        <translation>粘贴从 PDF 复制的文本时合并其中的换行（Ctrl+Z 恢复粘贴时的原样）</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>Larger text</source>
        <translation>放大字号</translation>
    </message>
    <message>
        <source>Larger text (Ctrl++)</source>
        <translation>放大字号（Ctrl++）</translation>
    </message>
    <message>
        <source>Smaller text</source>
        <translation>缩小字号</translation>
    </message>
    <message>
        <source>Smaller text (Ctrl+-)</source>
        <translation>缩小字号（Ctrl+-）</translation>
    </message>
    <message>
        <source>Default text size</source>
        <translation>默认字号</translation>
    </message>
    <message>
        <source>Default text size (Ctrl+0)</source>
        <translation>默认字号（Ctrl+0）</translation>
    </message>
    <message>
        <source>Bilingual</source>
        <translation>双语对照</translation>
    </message>
    <message>
        <source>Show, copy and save translations bilingually: each source paragraph followed by its translation</source>
        <translation>以双语对照显示、复制和保存译文：每段原文后接其译文</translation>
    </message>
    <message>
        <source>History…</source>
        <translation>历史记录…</translation>
    </message>
    <message>
        <source>Past translations: search, open, copy (Ctrl+H)</source>
        <translation>以往的翻译：搜索、打开、复制（Ctrl+H）</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>About desktop-mt</source>
        <translation>关于 desktop-mt</translation>
    </message>
    <message>
        <source>Model, licences and version</source>
        <translation>模型、许可证和版本</translation>
    </message>
</context>
<context>
    <name>Worker</name>
    <message>
        <source>No model is loaded yet.</source>
        <translation>尚未加载模型。</translation>
    </message>
    <message>
        <source>Could not load the model</source>
        <translation>无法加载模型</translation>
    </message>
    <message>
        <source>The previously loaded model is still in use.</source>
        <translation>之前加载的模型仍在使用中。</translation>
    </message>
    <message>
        <source>Cannot translate: {why}</source>
        <translation>无法翻译：{why}</translation>
    </message>
    <message>
        <source>Translation failed</source>
        <translation>翻译失败</translation>
    </message>
    <message>
        <source>Cannot complete: {why}</source>
        <translation>无法补全：{why}</translation>
    </message>
    <message>
        <source>Completion failed</source>
        <translation>补全失败</translation>
    </message>
    <message>
        <source>Alternatives failed</source>
        <translation>查找备选译文失败</translation>
    </message>
    <message>
        <source>Cannot translate the file: {why}</source>
        <translation>无法翻译该文件：{why}</translation>
    </message>
    <message>
        <source>File translation failed</source>
        <translation>文件翻译失败</translation>
    </message>
</context>
</TS>
