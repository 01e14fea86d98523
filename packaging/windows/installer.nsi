; desktop-mt-setup.exe: a per-user installer for the Windows one-folder bundle (NSIS 3).
;
;   makensis -INPUTCHARSET UTF8 -DBUNDLE=dist/desktop-mt -DVERSION=0.9.0 -DVERSION_NUM=0.9.0.0 \
;            -DOUTFILE=desktop-mt-setup.exe -DICON=packaging/icons/desktop-mt.ico \
;            packaging/windows/installer.nsi
;
; makensis runs on Linux (Debian's nsis) and on Windows (the GitHub workflow). The installer
; needs no administrator: it installs to %LOCALAPPDATA%\Programs\desktop-mt, adds a Start-menu
; shortcut for this user and an entry under "Installed apps" (HKCU). `desktop-mt-setup.exe /S`
; installs silently; `Uninstall.exe /S` removes what it installed. The user's own files
; (settings, history, translation memory under %APPDATA% / %LOCALAPPDATA%\desktop-mt) stay.

; A 64-bit installer for the 64-bit app (and Wine without its 32-bit half runs it).
Target amd64-unicode
!ifndef BUNDLE
  !error "pass -DBUNDLE=<the built dist/desktop-mt folder>"
!endif
!ifndef VERSION
  !error "pass -DVERSION=<desktop_mt.__version__>"
!endif
!ifndef VERSION_NUM
  !define VERSION_NUM "0.0.0.0"  ; four numbers for the file's version resource
!endif
!ifndef OUTFILE
  !define OUTFILE "desktop-mt-setup.exe"
!endif

!define APP "desktop-mt"
!define UNINST_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\${APP}"

Name "${APP} ${VERSION}"
OutFile "${OUTFILE}"
RequestExecutionLevel user
InstallDir "$LOCALAPPDATA\Programs\${APP}"
InstallDirRegKey HKCU "${UNINST_KEY}" "InstallLocation"
; LZMA, solid: the smallest installer, and the slowest to build (minutes, one thread).
; -DCOMPRESSOR=zlib builds in seconds, for a test (the Windows stage); what ships is LZMA.
!ifndef COMPRESSOR
  !define COMPRESSOR "lzma"
!endif
SetCompressor /SOLID ${COMPRESSOR}
ManifestDPIAware true
!ifdef ICON
  Icon "${ICON}"
  UninstallIcon "${ICON}"
!endif

VIProductVersion "${VERSION_NUM}"
VIAddVersionKey "ProductName" "${APP}"
VIAddVersionKey "ProductVersion" "${VERSION}"
VIAddVersionKey "FileVersion" "${VERSION}"
VIAddVersionKey "FileDescription" "${APP} installer"
VIAddVersionKey "LegalCopyright" "MIT License"

Page directory
Page instfiles
UninstPage uninstConfirm
UninstPage instfiles

Section "${APP}"
  SetShellVarContext current
  SetOutPath "$INSTDIR"
  File /r "${BUNDLE}\*"
  WriteUninstaller "$INSTDIR\Uninstall.exe"
  CreateShortcut "$SMPROGRAMS\${APP}.lnk" "$INSTDIR\desktop-mt.exe"
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayName" "${APP}"
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINST_KEY}" "Publisher" "${APP}"
  WriteRegStr HKCU "${UNINST_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayIcon" "$INSTDIR\desktop-mt.exe"
  WriteRegStr HKCU "${UNINST_KEY}" "UninstallString" '"$INSTDIR\Uninstall.exe"'
  WriteRegStr HKCU "${UNINST_KEY}" "QuietUninstallString" '"$INSTDIR\Uninstall.exe" /S'
  WriteRegDWORD HKCU "${UNINST_KEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINST_KEY}" "NoRepair" 1
SectionEnd

Section "Uninstall"
  SetShellVarContext current
  Delete "$SMPROGRAMS\${APP}.lnk"
  ; Remove the folder only when it is ours (the user may have picked another folder).
  IfFileExists "$INSTDIR\desktop-mt.exe" 0 +2
    RMDir /r "$INSTDIR"
  Delete "$INSTDIR\Uninstall.exe"
  RMDir "$INSTDIR"
  DeleteRegKey HKCU "${UNINST_KEY}"
SectionEnd
