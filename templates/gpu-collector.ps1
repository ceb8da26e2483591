# gpuform GPU collector for Windows (rendered by gpuform; installed by the Custom Script
# Extension, run by the Task Scheduler as SYSTEM). The Windows twin of gpu-collector.py: same
# nvidia-smi query, same table (GpuTelemetry_CL), same health contract.
#
#   gpuform-gpu.ps1 install EXPECTED_GPUS PORT
#       registers the scheduled tasks \gpuform\gpuform-gpu-collect (at startup and every
#       minute) and \gpuform\gpuform-gpu-health (at startup, restarted when it stops) and starts
#       them.
#   gpuform-gpu.ps1 collect EXPECTED_GPUS
#       one JSON line per GPU into C:\ProgramData\gpuform\logs\gpu-YYYYMMDD.json (UTF-8, the
#       Azure Monitor Agent reads no UTF-16), read through the data collection rule into
#       GpuTelemetry_CL; a VM whose nvidia-smi fails, or that shows fewer GPUs than its size
#       has, writes one health row (Status != "ok") instead.
#   gpuform-gpu.ps1 serve PORT
#       the health endpoint the Application Health extension probes (loopback only, 127.0.0.1
#       and ::1): 200 {"ApplicationHealthState":"Healthy"} while the last sample is fresh
#       (under 5 minutes) and healthy, 200 "Unhealthy" otherwise (a non-2xx answer would
#       read as Unknown to the extension, not Unhealthy).
#   gpuform-gpu.ps1 health
#       prints Healthy or Unhealthy (exit 0 or 1).
#
# Windows PowerShell 5.1 (what Windows Server 2016 to 2025 ship) and PowerShell 7; ASCII only
# (Windows PowerShell reads a script without a byte order mark as the ANSI code page).
# nvidia-smi.exe: C:\Windows\System32 on current NVIDIA drivers (GRID included), the NVSMI folder
# under Program Files on older ones.
# Environment (tests): GPUFORM_GPU_LOG_DIR, GPUFORM_GPU_STATE_DIR, GPUFORM_IMDS_FILE,
# GPUFORM_NOW (yyyy-MM-ddTHH:mm:ssZ), GPUFORM_NVIDIA_SMI, GPUFORM_DRIVER_EVENTS_FILE.
param(
    [Parameter(Position = 0)][string]$Command = '',
    [Parameter(Position = 1)][int]$Arg = 0,
    [Parameter(Position = 2)][int]$Port = 8711
)
Set-StrictMode -Version 2
$ErrorActionPreference = 'Stop'

$Query = 'timestamp,index,uuid,name,utilization.gpu,memory.used,memory.total,temperature.gpu,power.draw,ecc.errors.uncorrected.volatile.total,driver_version'
$Format = 'csv,noheader,nounits'
$ProgramData = if ($env:ProgramData) { $env:ProgramData } else { 'C:\ProgramData' }
$Root = Join-Path $ProgramData 'gpuform'
$LogDir = if ($env:GPUFORM_GPU_LOG_DIR) { $env:GPUFORM_GPU_LOG_DIR } else { Join-Path $Root 'logs' }
$StateDir = if ($env:GPUFORM_GPU_STATE_DIR) { $env:GPUFORM_GPU_STATE_DIR } else { Join-Path $Root 'state' }
# The instance metadata service's compute endpoint (priority, VM id): gpuform writes it in when it
# packs the script from its facts (templates/gpu-collector.ps1 keeps the placeholder).
$ImdsUrl = '@@GPUFORM_IMDS_URL@@'
$KeepDays = 2
$Stale = 300
$Inv = [Globalization.CultureInfo]::InvariantCulture
$Utc = [Globalization.DateTimeStyles]'AdjustToUniversal,AssumeUniversal'
$Stamp = "yyyy-MM-dd'T'HH:mm:ss'Z'"
$Utf8 = New-Object System.Text.UTF8Encoding($false)

# The columns of GpuTelemetry_CL, in the table's order (tests/gpu_monitoring.rs checks this list
# against the schema the template declares). New-Row refuses any other key.
$Columns = @(
    'TimeGenerated', 'Computer', 'VmId', 'Priority', 'ExpectedGpus', 'GpuIndex', 'GpuUuid',
    'GpuName', 'UtilizationPercent', 'MemoryUsedMiB', 'MemoryTotalMiB', 'TemperatureC',
    'PowerDrawW', 'EccUncorrected', 'XidErrors', 'XidCodes', 'DriverVersion', 'CudaVersion',
    'RunningJobs', 'Status', 'Healthy', 'Message'
)
# The workload (or whatever supervises it) may write the number of jobs it runs here, one integer.
$JobsFile = if ($env:GPUFORM_JOBS_FILE) { $env:GPUFORM_JOBS_FILE } else { Join-Path $Root 'jobs' }

function Get-Now {
    if ($env:GPUFORM_NOW) {
        return [DateTime]::ParseExact($env:GPUFORM_NOW, $Stamp, $Inv, $Utc)
    }
    $n = [DateTime]::UtcNow
    return $n.AddTicks(-1 * ($n.Ticks % [TimeSpan]::TicksPerSecond))
}

# The jobs the workload says it runs ($JobsFile, one integer), or $null without one.
function Get-RunningJobs {
    try {
        $n = 0
        $text = [IO.File]::ReadAllText($JobsFile).Trim()
        if ([int]::TryParse($text, [Globalization.NumberStyles]::None, $Inv, [ref]$n)) { return $n }
    } catch { }
    return $null
}

function New-Row($Base, $Values) {
    $row = [ordered]@{}
    foreach ($c in $Columns) { $row[$c] = $null }
    foreach ($part in @($Base, $Values)) {
        foreach ($k in $part.Keys) {
            if (-not $row.Contains($k)) { throw "gpuform: $k is not a column of GpuTelemetry_CL" }
            $row[$k] = $part[$k]
        }
    }
    return $row
}

# A number from nvidia-smi's CSV, or $null for [N/A], [Not Supported], [Unknown Error].
function ConvertTo-Number([string]$Text) {
    $d = 0.0
    if ([double]::TryParse($Text.Trim(), [Globalization.NumberStyles]::Float, $Inv, [ref]$d)) {
        return $d
    }
    return $null
}

function ConvertTo-Integer([string]$Text) {
    $n = ConvertTo-Number $Text
    if ($null -eq $n) { return $null }
    return [long][Math]::Truncate($n)
}

# Run a program; exit code, stdout, stderr (127 when it cannot start, 124 after 30 s).
function Invoke-Tool([string]$Exe, [string[]]$ArgList) {
    $psi = New-Object System.Diagnostics.ProcessStartInfo
    $psi.FileName = $Exe
    $psi.Arguments = (@($ArgList | ForEach-Object { '"' + $_ + '"' }) -join ' ')
    $psi.UseShellExecute = $false
    $psi.RedirectStandardOutput = $true
    $psi.RedirectStandardError = $true
    $psi.CreateNoWindow = $true
    try {
        $p = [System.Diagnostics.Process]::Start($psi)
    } catch {
        return @{ Code = 127; Out = ''; Err = "$Exe cannot start: $($_.Exception.Message)" }
    }
    $out = $p.StandardOutput.ReadToEndAsync()
    $err = $p.StandardError.ReadToEndAsync()
    if (-not $p.WaitForExit(30000)) {
        try { $p.Kill() } catch { }
        return @{ Code = 124; Out = ''; Err = "$Exe did not answer in 30 s" }
    }
    return @{ Code = $p.ExitCode; Out = $out.Result; Err = $err.Result }
}

function Find-NvidiaSmi {
    if ($env:GPUFORM_NVIDIA_SMI) { return $env:GPUFORM_NVIDIA_SMI }
    $candidates = @(
        (Join-Path $env:SystemRoot 'System32\nvidia-smi.exe'),
        (Join-Path $env:ProgramFiles 'NVIDIA Corporation\NVSMI\nvidia-smi.exe')
    )
    foreach ($c in $candidates) {
        if (Test-Path -LiteralPath $c) { return $c }
    }
    $cmd = Get-Command 'nvidia-smi.exe' -ErrorAction SilentlyContinue
    if ($cmd) { return $cmd.Path }
    return $null
}

function Get-Field($Object, [string]$Name) {
    if ($null -ne $Object -and $Object.PSObject.Properties[$Name]) {
        return [string]$Object.PSObject.Properties[$Name].Value
    }
    return ''
}

# Priority (Spot/Regular) and VM id from the instance metadata service, cached per boot.
function Get-Imds {
    $cache = Join-Path $StateDir 'imds.json'
    $src = $env:GPUFORM_IMDS_FILE
    foreach ($f in @($src, $cache)) {
        if ($f -and (Test-Path -LiteralPath $f)) {
            try { return (Get-Content -LiteralPath $f -Raw | ConvertFrom-Json) } catch { }
        }
    }
    if ($src -or $ImdsUrl.StartsWith('@@')) { return $null }
    try {
        $req = [System.Net.WebRequest]::Create($ImdsUrl)
        $req.Headers.Add('Metadata', 'true')
        $req.Proxy = $null
        $req.Timeout = 2000
        $resp = $req.GetResponse()
        try {
            $text = (New-Object System.IO.StreamReader($resp.GetResponseStream())).ReadToEnd()
        } finally { $resp.Close() }
        [System.IO.File]::WriteAllText($cache, $text, $Utf8)
        return ($text | ConvertFrom-Json)
    } catch {
        return $null
    }
}

function Get-CudaVersion([string]$Smi) {
    $r = Invoke-Tool $Smi @()
    if ($r.Code -eq 0 -and $r.Out -match 'CUDA Version:\s*([0-9.]+)') { return $Matches[1] }
    return ''
}

# Windows has no kernel log to grep for "NVRM: Xid": the display driver (nvlddmkm) writes its
# errors to the System event log. XidErrors counts its Error/Critical events since the previous
# sample; XidCodes lists the Xid numbers the messages name.
function Get-DriverErrors([string]$SinceFile) {
    $messages = @()
    if ($env:GPUFORM_DRIVER_EVENTS_FILE) {
        $messages = @(Get-Content -LiteralPath $env:GPUFORM_DRIVER_EVENTS_FILE | Where-Object { $_ -match 'Xid' })
    } else {
        $since = $null
        if (Test-Path -LiteralPath $SinceFile) {
            try {
                $since = [DateTime]::ParseExact((Get-Content -LiteralPath $SinceFile -Raw).Trim(), $Stamp, $Inv, $Utc)
            } catch { }
        }
        if ($null -eq $since) {
            try { $since = (Get-CimInstance -ClassName Win32_OperatingSystem).LastBootUpTime.ToUniversalTime() } catch { $since = (Get-Now).AddMinutes(-1) }
        }
        try {
            $filter = @{ LogName = 'System'; ProviderName = 'nvlddmkm'; Level = @(1, 2); StartTime = $since.ToLocalTime() }
            $messages = @(Get-WinEvent -FilterHashtable $filter -ErrorAction Stop | ForEach-Object { [string]$_.Message })
        } catch {
            # "No events were found that match the specified selection criteria" is an error too
            $messages = @()
        }
    }
    $codes = @()
    foreach ($m in $messages) {
        if ($m -match 'Xid[^0-9]*(\d+)') { $codes += [int]$Matches[1] }
    }
    return @{ Events = $messages.Count; Codes = ((@($codes | Sort-Object -Unique)) -join ',') }
}

function Write-Lines([string]$Path, $Rows) {
    $text = ''
    foreach ($r in $Rows) { $text += ($r | ConvertTo-Json -Compress) + "`r`n" }
    [System.IO.File]::AppendAllText($Path, $text, $Utf8)
}

function Invoke-Collect([int]$Expected) {
    $t = Get-Now
    $stamp = $t.ToString($Stamp, $Inv)
    New-Item -ItemType Directory -Force -Path $LogDir, $StateDir | Out-Null
    $meta = Get-Imds
    $priority = Get-Field $meta 'priority'
    if (-not $priority) { $priority = 'Regular' }
    $base = @{
        TimeGenerated = $stamp
        Computer      = [System.Net.Dns]::GetHostName()
        VmId          = (Get-Field $meta 'vmId')
        Priority      = $priority
        ExpectedGpus  = $Expected
        RunningJobs   = (Get-RunningJobs)
    }
    $sinceFile = Join-Path $StateDir 'xid-since'
    $xid = Get-DriverErrors $sinceFile
    $smi = Find-NvidiaSmi
    if ($smi) {
        $r = Invoke-Tool $smi @("--query-gpu=$Query", "--format=$Format")
    } else {
        $r = @{ Code = 127; Out = ''; Err = 'nvidia-smi.exe not found (System32, NVSMI, PATH): is the NVIDIA driver installed?' }
    }
    $rows = New-Object System.Collections.ArrayList
    if ($r.Code -eq 0) {
        $cuda = Get-CudaVersion $smi
        foreach ($line in ($r.Out -split "`r?`n")) {
            $f = @($line.Split(',') | ForEach-Object { $_.Trim() })
            if ($f.Count -ne 11) { continue }
            $gpu = @{
                GpuIndex           = (ConvertTo-Integer $f[1])
                GpuUuid            = $f[2]
                GpuName            = $f[3]
                UtilizationPercent = (ConvertTo-Number $f[4])
                MemoryUsedMiB      = (ConvertTo-Number $f[5])
                MemoryTotalMiB     = (ConvertTo-Number $f[6])
                TemperatureC       = (ConvertTo-Number $f[7])
                PowerDrawW         = (ConvertTo-Number $f[8])
                EccUncorrected     = (ConvertTo-Integer $f[9])
                XidErrors          = $xid.Events
                XidCodes           = $xid.Codes
                DriverVersion      = $f[10]
                CudaVersion        = $cuda
                Status             = 'ok'
                Healthy            = $true
                Message            = ''
            }
            [void]$rows.Add((New-Row $base $gpu))
        }
    }
    if ($r.Code -ne 0 -or $rows.Count -eq 0) {
        $lines = @((($r.Err + "`n" + $r.Out).Trim()) -split "`r?`n" | Where-Object { $_ })
        $msg = if ($lines.Count -gt 0) { $lines[0] } else { "nvidia-smi exited $($r.Code)" }
        if ($msg.Length -gt 500) { $msg = $msg.Substring(0, 500) }
        $status = if ($r.Code -ne 0) { 'nvidia-smi-failed' } else { 'no-gpu' }
        $rows = @(New-Row $base @{
                GpuIndex  = $null
                Status    = $status
                Healthy   = $false
                XidErrors = $xid.Events
                XidCodes  = $xid.Codes
                Message   = $msg
            })
    } elseif ($rows.Count -lt $Expected) {
        foreach ($row in $rows) {
            $row['Status'] = 'gpu-missing'
            $row['Healthy'] = $false
            $row['Message'] = "nvidia-smi shows $($rows.Count) of $Expected GPUs"
        }
    }
    Write-Lines (Join-Path $LogDir ('gpu-' + $t.ToString('yyyyMMdd', $Inv) + '.json')) $rows
    $healthy = $true
    foreach ($row in $rows) { if (-not $row['Healthy']) { $healthy = $false } }
    $state = [ordered]@{ time = $stamp; healthy = $healthy; status = $rows[0]['Status'] }
    $tmp = Join-Path $StateDir 'health.json.tmp'
    [System.IO.File]::WriteAllText($tmp, ($state | ConvertTo-Json -Compress), $Utf8)
    $dest = Join-Path $StateDir 'health.json'
    # the responder never reads a half-written file: replace, or move the first one in
    if (Test-Path -LiteralPath $dest) {
        [System.IO.File]::Replace($tmp, $dest, $null)
    } else {
        [System.IO.File]::Move($tmp, $dest)
    }
    [System.IO.File]::WriteAllText($sinceFile, $stamp, $Utf8)
    # the agent reads new lines; files older than KeepDays are gone
    $cutoff = $t.AddDays(-$KeepDays).ToString('yyyyMMdd', $Inv)
    foreach ($old in @(Get-ChildItem -LiteralPath $LogDir -Filter 'gpu-*.json' -ErrorAction SilentlyContinue)) {
        $day = $old.BaseName.Substring(4)
        if ($day -match '^\d{8}$' -and $day -lt $cutoff) { Remove-Item -LiteralPath $old.FullName -Force }
    }
    if ($healthy) { return 0 }
    return 1
}

# (HTTP status, rich health state) from the last sample; stale after 5 minutes.
function Get-Health {
    try {
        $s = Get-Content -LiteralPath (Join-Path $StateDir 'health.json') -Raw | ConvertFrom-Json
        # PowerShell 7 turns an ISO 8601 string into a DateTime; Windows PowerShell keeps it
        $at = if ($s.time -is [DateTime]) { $s.time.ToUniversalTime() } else { [DateTime]::ParseExact([string]$s.time, $Stamp, $Inv, $Utc) }
        $fresh = ((Get-Now) - $at).TotalSeconds -lt $Stale
        if ($s.healthy -eq $true -and $fresh) { return @(200, 'Healthy') }
    } catch { }
    # 200 with the state: the Application Health extension reads a non-2xx answer as Unknown
    return @(200, 'Unhealthy')
}

function Send-Health($Client) {
    try {
        $Client.ReceiveTimeout = 5000
        $Client.SendTimeout = 5000
        $stream = $Client.GetStream()
        $reader = New-Object System.IO.StreamReader($stream, [System.Text.Encoding]::ASCII)
        # the request line and headers; the probe sends a GET without a body
        while ($true) {
            $line = $reader.ReadLine()
            if ($null -eq $line -or $line -eq '') { break }
        }
        $h = Get-Health
        $body = $Utf8.GetBytes((@{ ApplicationHealthState = $h[1] } | ConvertTo-Json -Compress))
        $reason = 'OK'
        $head = [System.Text.Encoding]::ASCII.GetBytes("HTTP/1.1 $($h[0]) $reason`r`nContent-Type: application/json`r`nContent-Length: $($body.Length)`r`nConnection: close`r`n`r`n")
        $stream.Write($head, 0, $head.Length)
        $stream.Write($body, 0, $body.Length)
        $stream.Flush()
    } catch {
    } finally {
        $Client.Close()
    }
}

# Loopback only: a TcpListener on 127.0.0.1 and ::1 (no HTTP.sys URL reservation, nothing on
# the VM's network interfaces).
function Invoke-Serve([int]$ListenPort) {
    $listeners = @()
    foreach ($ip in @([System.Net.IPAddress]::Loopback, [System.Net.IPAddress]::IPv6Loopback)) {
        try {
            $l = New-Object System.Net.Sockets.TcpListener($ip, $ListenPort)
            $l.Start()
            $listeners += $l
        } catch { }
    }
    if ($listeners.Count -eq 0) { throw "gpuform: cannot listen on 127.0.0.1:$ListenPort" }
    while ($true) {
        $served = $false
        foreach ($l in $listeners) {
            if ($l.Pending()) {
                Send-Health $l.AcceptTcpClient()
                $served = $true
            }
        }
        if (-not $served) { Start-Sleep -Milliseconds 100 }
    }
}

function Invoke-Install([int]$Expected, [int]$ListenPort) {
    $self = Join-Path $Root 'gpuform-gpu.ps1'
    New-Item -ItemType Directory -Force -Path $Root, $LogDir, $StateDir | Out-Null
    if ($PSCommandPath -and ($PSCommandPath -ne $self)) {
        Copy-Item -LiteralPath $PSCommandPath -Destination $self -Force
    }
    $ps = Join-Path $env:SystemRoot 'System32\WindowsPowerShell\v1.0\powershell.exe'
    $common = "-NoProfile -NonInteractive -ExecutionPolicy Bypass -File `"$self`""
    $principal = New-ScheduledTaskPrincipal -UserId 'NT AUTHORITY\SYSTEM' -LogonType ServiceAccount -RunLevel Highest
    $boot = New-ScheduledTaskTrigger -AtStartup
    # a time trigger repeating every minute; without -RepetitionDuration it repeats indefinitely
    # (Windows Server 2016 and later), across reboots
    $every = New-ScheduledTaskTrigger -Once -At ((Get-Date).AddMinutes(1)) -RepetitionInterval (New-TimeSpan -Minutes 1)
    $collect = New-ScheduledTaskSettingsSet -ExecutionTimeLimit (New-TimeSpan -Minutes 2) -MultipleInstances IgnoreNew -StartWhenAvailable -AllowStartIfOnBatteries -DontStopIfGoingOnBatteries
    Register-ScheduledTask -TaskPath '\gpuform\' -TaskName 'gpuform-gpu-collect' -Force `
        -Description 'gpuform: sample every GPU with nvidia-smi into C:\ProgramData\gpuform\logs (Azure Monitor Agent)' `
        -Action (New-ScheduledTaskAction -Execute $ps -Argument "$common collect $Expected") `
        -Trigger @($boot, $every) -Principal $principal -Settings $collect | Out-Null
    # no time limit; restarted a minute after it stops
    $serve = New-ScheduledTaskSettingsSet -ExecutionTimeLimit ([TimeSpan]::Zero) -RestartCount 999 -RestartInterval (New-TimeSpan -Minutes 1) -MultipleInstances IgnoreNew -AllowStartIfOnBatteries -DontStopIfGoingOnBatteries
    Register-ScheduledTask -TaskPath '\gpuform\' -TaskName 'gpuform-gpu-health' -Force `
        -Description "gpuform: GPU health endpoint on 127.0.0.1:$ListenPort (Application Health extension)" `
        -Action (New-ScheduledTaskAction -Execute $ps -Argument "$common serve $ListenPort") `
        -Trigger $boot -Principal $principal -Settings $serve | Out-Null
    Start-ScheduledTask -TaskPath '\gpuform\' -TaskName 'gpuform-gpu-health'
    Start-ScheduledTask -TaskPath '\gpuform\' -TaskName 'gpuform-gpu-collect'
    Write-Host "gpuform: GPU collector installed ($Expected GPU(s), health on 127.0.0.1:$ListenPort)"
    return 0
}

switch ($Command) {
    # the exit code is the function's last output
    'install' {
        $rc = @(Invoke-Install $(if ($Arg -gt 0) { $Arg } else { 1 }) $Port)[-1]
        exit $rc
    }
    'collect' {
        $rc = @(Invoke-Collect $(if ($Arg -gt 0) { $Arg } else { 1 }))[-1]
        exit $rc
    }
    'serve' { Invoke-Serve $(if ($Arg -gt 0) { $Arg } else { $Port }); exit 0 }
    'health' {
        $h = Get-Health
        Write-Output $h[1]
        if ($h[1] -eq 'Healthy') { exit 0 }
        exit 1
    }
    default {
        [Console]::Error.WriteLine('usage: gpuform-gpu.ps1 install EXPECTED_GPUS PORT | collect EXPECTED_GPUS | serve PORT | health')
        exit 2
    }
}
