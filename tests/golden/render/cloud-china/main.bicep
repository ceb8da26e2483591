// GPU pool `variant-china`, rendered by gpuform from cloud-china.yaml.
// Generated file: change the spec and run `gpuform render` instead of editing it.
// Sections: parameters, network, identity, key vault and encryption, compute, autoscale,
// monitoring, outputs. azuredeploy.json is the same deployment as ARM JSON.
targetScope = 'resourceGroup'

metadata name = 'variant-china'

// ---------------------------------------------------------------- parameters

@description('Region of every resource. main.bicepparam sets the spec\'s region (chinanorth3).')
param location string = resourceGroup().location

@description('Admin user name of the VMs.')
param adminUsername string = 'azureuser'

@description('SSH public key of the admin user (OpenSSH format). Password sign-in is disabled.')
param sshPublicKey string = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIT6t8MFGDBjrDDzp2JXe3CIMMd6hupoyimypHKIa8Ja ops@example.com'

var tags = {
  'costCenter': 'cc-1'
  'env': 'test'
  'project': 'p'
  'team': 't'
}

// cloud-init (cloud-china.yaml → compute.cloudInit, and the GPU collector of monitoring.gpu: multipart MIME), base64. Not secret: every VM can read it.
var customData = 'IyEvYmluL3NoCiMgZ3B1Zm9ybTogR1BVIGNvbGxlY3RvciAobnZpZGlhLXNtaSBvbmNlIGEgbWludXRlIC0+IC92YXIvbG9nL2dwdWZvcm0vZ3B1LSouanNvbiAtPiBBenVyZSBNb25pdG9yIEFnZW50KQojIGFuZCB0aGUgaGVhbHRoIGVuZHBvaW50IHRoZSBBcHBsaWNhdGlvbiBIZWFsdGggZXh0ZW5zaW9uIHByb2JlcyAoMTI3LjAuMC4xOjg3MTEpLgpzZXQgLWV1Cmluc3RhbGwgLWQgLW0gMDc1NSAvdXNyL2xvY2FsL2xpYi9ncHVmb3JtIC92YXIvbG9nL2dwdWZvcm0KY2F0ID4gL3Vzci9sb2NhbC9saWIvZ3B1Zm9ybS9ncHVmb3JtLWdwdSA8PCdHUFVGT1JNX0VPRicKIyEvdXNyL2Jpbi9weXRob24zCiMgZ3B1Zm9ybSBHUFUgY29sbGVjdG9yIChyZW5kZXJlZCBieSBncHVmb3JtOyBpbnN0YWxsZWQgYnkgY2xvdWQtaW5pdCwgcnVuIGJ5IHN5c3RlbWQpLgojCiMgICBncHVmb3JtLWdwdSBjb2xsZWN0ICBvbmNlIGEgbWludXRlIChncHVmb3JtLWdwdS1jb2xsZWN0LnRpbWVyKTogb25lIEpTT04gbGluZSBwZXIgR1BVIGludG8KIyAgICAgICAgICAgICAgICAgICAgICAgIC92YXIvbG9nL2dwdWZvcm0vZ3B1LVlZWVlNTURELmpzb24sIHJlYWQgYnkgdGhlIEF6dXJlIE1vbml0b3IgQWdlbnQKIyAgICAgICAgICAgICAgICAgICAgICAgIChkYXRhIGNvbGxlY3Rpb24gcnVsZSwgbG9nRmlsZXMvanNvbikgaW50byB0aGUgR3B1VGVsZW1ldHJ5X0NMIHRhYmxlOwojICAgICAgICAgICAgICAgICAgICAgICAgYSBWTSB3aG9zZSBudmlkaWEtc21pIGZhaWxzLCBvciB0aGF0IHNob3dzIGZld2VyIEdQVXMgdGhhbiBpdHMgc2l6ZQojICAgICAgICAgICAgICAgICAgICAgICAgaGFzLCB3cml0ZXMgb25lIGhlYWx0aCByb3cgKFN0YXR1cyAhPSAib2siKSBpbnN0ZWFkLgojICAgZ3B1Zm9ybS1ncHUgc2VydmUgICAgdGhlIGhlYWx0aCBlbmRwb2ludCB0aGUgQXBwbGljYXRpb24gSGVhbHRoIGV4dGVuc2lvbiBwcm9iZXMKIyAgICAgICAgICAgICAgICAgICAgICAgICgxMjcuMC4wLjEgb25seSk6IDIwMCB7IkFwcGxpY2F0aW9uSGVhbHRoU3RhdGUiOiAiSGVhbHRoeSJ9IHdoaWxlIHRoZQojICAgICAgICAgICAgICAgICAgICAgICAgbGFzdCBzYW1wbGUgaXMgZnJlc2ggYW5kIGhlYWx0aHksIDUwMyAiVW5oZWFsdGh5IiBvdGhlcndpc2UuCiMKIyBQeXRob24gMyBzdGFuZGFyZCBsaWJyYXJ5IG9ubHkgKGV2ZXJ5IFVidW50dSBpbWFnZSBoYXMgcHl0aG9uMzogY2xvdWQtaW5pdCBydW5zIG9uIGl0KS4KIyBFbnZpcm9ubWVudCAodGVzdHMpOiBHUFVGT1JNX0dQVV9MT0dfRElSLCBHUFVGT1JNX0dQVV9TVEFURV9ESVIsIEdQVUZPUk1fSU1EU19GSUxFLAojIEdQVUZPUk1fTk9XIChJU08gODYwMSBVVEMpLgppbXBvcnQgZGF0ZXRpbWUKaW1wb3J0IGdsb2IKaW1wb3J0IGh0dHAuc2VydmVyCmltcG9ydCBqc29uCmltcG9ydCBvcwppbXBvcnQgcmUKaW1wb3J0IHNvY2tldAppbXBvcnQgc3VicHJvY2VzcwppbXBvcnQgc3lzCmltcG9ydCB1cmxsaWIucmVxdWVzdAoKUVVFUlkgPSAoCiAgICAidGltZXN0YW1wLGluZGV4LHV1aWQsbmFtZSx1dGlsaXphdGlvbi5ncHUsbWVtb3J5LnVzZWQsbWVtb3J5LnRvdGFsLHRlbXBlcmF0dXJlLmdwdSwiCiAgICAicG93ZXIuZHJhdyxlY2MuZXJyb3JzLnVuY29ycmVjdGVkLnZvbGF0aWxlLnRvdGFsLGRyaXZlcl92ZXJzaW9uIgopCkxPR19ESVIgPSBvcy5lbnZpcm9uLmdldCgiR1BVRk9STV9HUFVfTE9HX0RJUiIsICIvdmFyL2xvZy9ncHVmb3JtIikKU1RBVEVfRElSID0gb3MuZW52aXJvbi5nZXQoIkdQVUZPUk1fR1BVX1NUQVRFX0RJUiIsICIvcnVuL2dwdWZvcm0iKQpLRUVQX0RBWVMgPSAyClhJRCA9IHJlLmNvbXBpbGUociJOVlJNOiBYaWQgXChbXildKlwpOiAoXGQrKSIpCgoKZGVmIG5vdygpOgogICAgZml4ZWQgPSBvcy5lbnZpcm9uLmdldCgiR1BVRk9STV9OT1ciKQogICAgaWYgZml4ZWQ6CiAgICAgICAgcmV0dXJuIGRhdGV0aW1lLmRhdGV0aW1lLnN0cnB0aW1lKGZpeGVkLCAiJVktJW0tJWRUJUg6JU06JVNaIikucmVwbGFjZSgKICAgICAgICAgICAgdHppbmZvPWRhdGV0aW1lLnRpbWV6b25lLnV0YwogICAgICAgICkKICAgIHJldHVybiBkYXRldGltZS5kYXRldGltZS5ub3coZGF0ZXRpbWUudGltZXpvbmUudXRjKS5yZXBsYWNlKG1pY3Jvc2Vjb25kPTApCgoKZGVmIHJ1bihjbWQpOgogICAgdHJ5OgogICAgICAgIHAgPSBzdWJwcm9jZXNzLnJ1bihjbWQsIGNhcHR1cmVfb3V0cHV0PVRydWUsIHRleHQ9VHJ1ZSwgdGltZW91dD0zMCkKICAgICAgICByZXR1cm4gcC5yZXR1cm5jb2RlLCBwLnN0ZG91dCwgcC5zdGRlcnIKICAgIGV4Y2VwdCAoT1NFcnJvciwgc3VicHJvY2Vzcy5UaW1lb3V0RXhwaXJlZCkgYXMgZToKICAgICAgICByZXR1cm4gMTI3LCAiIiwgc3RyKGUpCgoKZGVmIG51bSh2KToKICAgICIiIkEgbnVtYmVyIGZyb20gbnZpZGlhLXNtaSdzIENTViwgb3IgTm9uZSBmb3IgW04vQV0sIFtOb3QgU3VwcG9ydGVkXSwgW1Vua25vd24gRXJyb3JdLiIiIgogICAgdiA9IHYuc3RyaXAoKQogICAgdHJ5OgogICAgICAgIHJldHVybiBmbG9hdCh2KQogICAgZXhjZXB0IFZhbHVlRXJyb3I6CiAgICAgICAgcmV0dXJuIE5vbmUKCgpkZWYgaW50ZWdlcih2KToKICAgIG4gPSBudW0odikKICAgIHJldHVybiBOb25lIGlmIG4gaXMgTm9uZSBlbHNlIGludChuKQoKCmRlZiBpbWRzKCk6CiAgICAiIiJQcmlvcml0eSAoU3BvdC9SZWd1bGFyKSBhbmQgVk0gaWQgZnJvbSB0aGUgaW5zdGFuY2UgbWV0YWRhdGEgc2VydmljZSwgY2FjaGVkIHBlciBib290LiIiIgogICAgY2FjaGUgPSBvcy5wYXRoLmpvaW4oU1RBVEVfRElSLCAiaW1kcy5qc29uIikKICAgIHNyYyA9IG9zLmVudmlyb24uZ2V0KCJHUFVGT1JNX0lNRFNfRklMRSIpCiAgICB0cnk6CiAgICAgICAgaWYgc3JjOgogICAgICAgICAgICB3aXRoIG9wZW4oc3JjKSBhcyBmOgogICAgICAgICAgICAgICAgcmV0dXJuIGpzb24ubG9hZChmKQogICAgICAgIHdpdGggb3BlbihjYWNoZSkgYXMgZjoKICAgICAgICAgICAgcmV0dXJuIGpzb24ubG9hZChmKQogICAgZXhjZXB0IChPU0Vycm9yLCBWYWx1ZUVycm9yKToKICAgICAgICBwYXNzCiAgICBpZiBzcmM6CiAgICAgICAgcmV0dXJuIHt9CiAgICB0cnk6CiAgICAgICAgcmVxID0gdXJsbGliLnJlcXVlc3QuUmVxdWVzdCgKICAgICAgICAgICAgImh0dHA6Ly8xNjkuMjU0LjE2OS4yNTQvbWV0YWRhdGEvaW5zdGFuY2UvY29tcHV0ZT9hcGktdmVyc2lvbj0yMDIxLTAyLTAxIiwKICAgICAgICAgICAgaGVhZGVycz17Ik1ldGFkYXRhIjogInRydWUifSwKICAgICAgICApCiAgICAgICAgd2l0aCB1cmxsaWIucmVxdWVzdC51cmxvcGVuKHJlcSwgdGltZW91dD0yKSBhcyByOgogICAgICAgICAgICBkYXRhID0ganNvbi5sb2FkKHIpCiAgICAgICAgd2l0aCBvcGVuKGNhY2hlLCAidyIpIGFzIGY6CiAgICAgICAgICAgIGpzb24uZHVtcChkYXRhLCBmKQogICAgICAgIHJldHVybiBkYXRhCiAgICBleGNlcHQgKE9TRXJyb3IsIFZhbHVlRXJyb3IpOgogICAgICAgIHJldHVybiB7fQoKCmRlZiBjdWRhX3ZlcnNpb24oKToKICAgIHJjLCBvdXQsIF8gPSBydW4oWyJudmlkaWEtc21pIl0pCiAgICBtID0gcmUuc2VhcmNoKHIiQ1VEQSBWZXJzaW9uOlxzKihbMC05Ll0rKSIsIG91dCkgaWYgcmMgPT0gMCBlbHNlIE5vbmUKICAgIHJldHVybiBtLmdyb3VwKDEpIGlmIG0gZWxzZSAiIgoKCmRlZiB4aWRfZXJyb3JzKHNpbmNlX2ZpbGUpOgogICAgIiIiWGlkIGV2ZW50cyBpbiB0aGUga2VybmVsIGxvZyBzaW5jZSB0aGUgcHJldmlvdXMgc2FtcGxlOiAoY291bnQsICI3OSw0OCIpLiIiIgogICAgc2luY2UgPSBOb25lCiAgICB0cnk6CiAgICAgICAgd2l0aCBvcGVuKHNpbmNlX2ZpbGUpIGFzIGY6CiAgICAgICAgICAgIHNpbmNlID0gZi5yZWFkKCkuc3RyaXAoKQogICAgZXhjZXB0IE9TRXJyb3I6CiAgICAgICAgcGFzcwogICAgY21kID0gWyJqb3VybmFsY3RsIiwgIi1rIiwgIi1vIiwgImNhdCIsICItLW5vLXBhZ2VyIl0KICAgIGNtZCArPSBbIi0tc2luY2UiLCBzaW5jZV0gaWYgc2luY2UgZWxzZSBbIi1iIl0KICAgIHJjLCBvdXQsIF8gPSBydW4oY21kKQogICAgY29kZXMgPSBYSUQuZmluZGFsbChvdXQpIGlmIHJjID09IDAgZWxzZSBbXQogICAgcmV0dXJuIGxlbihjb2RlcyksICIsIi5qb2luKHNvcnRlZChzZXQoY29kZXMpLCBrZXk9aW50KSkKCgpkZWYgY29sbGVjdChleHBlY3RlZCk6CiAgICB0ID0gbm93KCkKICAgIHN0YW1wID0gdC5zdHJmdGltZSgiJVktJW0tJWRUJUg6JU06JVNaIikKICAgIG9zLm1ha2VkaXJzKExPR19ESVIsIGV4aXN0X29rPVRydWUpCiAgICBvcy5tYWtlZGlycyhTVEFURV9ESVIsIGV4aXN0X29rPVRydWUpCiAgICBtZXRhID0gaW1kcygpCiAgICBiYXNlID0gewogICAgICAgICJUaW1lR2VuZXJhdGVkIjogc3RhbXAsCiAgICAgICAgIkNvbXB1dGVyIjogc29ja2V0LmdldGhvc3RuYW1lKCksCiAgICAgICAgIlZtSWQiOiBtZXRhLmdldCgidm1JZCIsICIiKSwKICAgICAgICAiUHJpb3JpdHkiOiBtZXRhLmdldCgicHJpb3JpdHkiLCAiIikgb3IgIlJlZ3VsYXIiLAogICAgICAgICJFeHBlY3RlZEdwdXMiOiBleHBlY3RlZCwKICAgIH0KICAgIHNpbmNlX2ZpbGUgPSBvcy5wYXRoLmpvaW4oU1RBVEVfRElSLCAieGlkLXNpbmNlIikKICAgIHhpZHMsIHhpZF9jb2RlcyA9IHhpZF9lcnJvcnMoc2luY2VfZmlsZSkKICAgIHJjLCBvdXQsIGVyciA9IHJ1bihbIm52aWRpYS1zbWkiLCAiLS1xdWVyeS1ncHU9IiArIFFVRVJZLCAiLS1mb3JtYXQ9Y3N2LG5vaGVhZGVyLG5vdW5pdHMiXSkKICAgIHJvd3MgPSBbXQogICAgaWYgcmMgPT0gMDoKICAgICAgICBjdWRhID0gY3VkYV92ZXJzaW9uKCkKICAgICAgICBmb3IgbGluZSBpbiBvdXQuc3BsaXRsaW5lcygpOgogICAgICAgICAgICBmID0gW2Muc3RyaXAoKSBmb3IgYyBpbiBsaW5lLnNwbGl0KCIsIildCiAgICAgICAgICAgIGlmIGxlbihmKSAhPSAxMToKICAgICAgICAgICAgICAgIGNvbnRpbnVlCiAgICAgICAgICAgIHJvd3MuYXBwZW5kKAogICAgICAgICAgICAgICAgZGljdCgKICAgICAgICAgICAgICAgICAgICBiYXNlLAogICAgICAgICAgICAgICAgICAgIEdwdUluZGV4PWludGVnZXIoZlsxXSksCiAgICAgICAgICAgICAgICAgICAgR3B1VXVpZD1mWzJdLAogICAgICAgICAgICAgICAgICAgIEdwdU5hbWU9ZlszXSwKICAgICAgICAgICAgICAgICAgICBVdGlsaXphdGlvblBlcmNlbnQ9bnVtKGZbNF0pLAogICAgICAgICAgICAgICAgICAgIE1lbW9yeVVzZWRNaUI9bnVtKGZbNV0pLAogICAgICAgICAgICAgICAgICAgIE1lbW9yeVRvdGFsTWlCPW51bShmWzZdKSwKICAgICAgICAgICAgICAgICAgICBUZW1wZXJhdHVyZUM9bnVtKGZbN10pLAogICAgICAgICAgICAgICAgICAgIFBvd2VyRHJhd1c9bnVtKGZbOF0pLAogICAgICAgICAgICAgICAgICAgIEVjY1VuY29ycmVjdGVkPWludGVnZXIoZls5XSksCiAgICAgICAgICAgICAgICAgICAgWGlkRXJyb3JzPXhpZHMsCiAgICAgICAgICAgICAgICAgICAgWGlkQ29kZXM9eGlkX2NvZGVzLAogICAgICAgICAgICAgICAgICAgIERyaXZlclZlcnNpb249ZlsxMF0sCiAgICAgICAgICAgICAgICAgICAgQ3VkYVZlcnNpb249Y3VkYSwKICAgICAgICAgICAgICAgICAgICBTdGF0dXM9Im9rIiwKICAgICAgICAgICAgICAgICAgICBIZWFsdGh5PVRydWUsCiAgICAgICAgICAgICAgICAgICAgTWVzc2FnZT0iIiwKICAgICAgICAgICAgICAgICkKICAgICAgICAgICAgKQogICAgaWYgcmMgIT0gMCBvciBub3Qgcm93czoKICAgICAgICBtc2cgPSAoZXJyIG9yIG91dCkuc3RyaXAoKS5zcGxpdGxpbmVzKCkKICAgICAgICByb3dzID0gWwogICAgICAgICAgICBkaWN0KAogICAgICAgICAgICAgICAgYmFzZSwKICAgICAgICAgICAgICAgIEdwdUluZGV4PU5vbmUsCiAgICAgICAgICAgICAgICBTdGF0dXM9Im52aWRpYS1zbWktZmFpbGVkIiBpZiByYyAhPSAwIGVsc2UgIm5vLWdwdSIsCiAgICAgICAgICAgICAgICBIZWFsdGh5PUZhbHNlLAogICAgICAgICAgICAgICAgWGlkRXJyb3JzPXhpZHMsCiAgICAgICAgICAgICAgICBYaWRDb2Rlcz14aWRfY29kZXMsCiAgICAgICAgICAgICAgICBNZXNzYWdlPShtc2dbMF0gaWYgbXNnIGVsc2UgIm52aWRpYS1zbWkgZXhpdGVkICVkIiAlIHJjKVs6NTAwXSwKICAgICAgICAgICAgKQogICAgICAgIF0KICAgIGVsaWYgbGVuKHJvd3MpIDwgZXhwZWN0ZWQ6CiAgICAgICAgZm9yIHIgaW4gcm93czoKICAgICAgICAgICAgclsiU3RhdHVzIl0gPSAiZ3B1LW1pc3NpbmciCiAgICAgICAgICAgIHJbIkhlYWx0aHkiXSA9IEZhbHNlCiAgICAgICAgICAgIHJbIk1lc3NhZ2UiXSA9ICJudmlkaWEtc21pIHNob3dzICVkIG9mICVkIEdQVXMiICUgKGxlbihyb3dzKSwgZXhwZWN0ZWQpCiAgICBwYXRoID0gb3MucGF0aC5qb2luKExPR19ESVIsICJncHUtJXMuanNvbiIgJSB0LnN0cmZ0aW1lKCIlWSVtJWQiKSkKICAgIHdpdGggb3BlbihwYXRoLCAiYSIpIGFzIGY6CiAgICAgICAgZm9yIHIgaW4gcm93czoKICAgICAgICAgICAgZi53cml0ZShqc29uLmR1bXBzKHIsIHNvcnRfa2V5cz1UcnVlLCBzZXBhcmF0b3JzPSgiLCIsICI6IikpICsgIlxuIikKICAgIGhlYWx0aHkgPSBhbGwoclsiSGVhbHRoeSJdIGZvciByIGluIHJvd3MpCiAgICBzdGF0dXMgPSB7InRpbWUiOiBzdGFtcCwgImhlYWx0aHkiOiBoZWFsdGh5LCAic3RhdHVzIjogcm93c1swXVsiU3RhdHVzIl19CiAgICB0bXAgPSBvcy5wYXRoLmpvaW4oU1RBVEVfRElSLCAiaGVhbHRoLmpzb24udG1wIikKICAgIHdpdGggb3Blbih0bXAsICJ3IikgYXMgZjoKICAgICAgICBqc29uLmR1bXAoc3RhdHVzLCBmKQogICAgb3MucmVwbGFjZSh0bXAsIG9zLnBhdGguam9pbihTVEFURV9ESVIsICJoZWFsdGguanNvbiIpKQogICAgd2l0aCBvcGVuKHNpbmNlX2ZpbGUsICJ3IikgYXMgZjoKICAgICAgICBmLndyaXRlKHQuc3RyZnRpbWUoIiVZLSVtLSVkICVIOiVNOiVTIFVUQyIpKQogICAgIyB0aGUgYWdlbnQgcmVhZHMgbmV3IGxpbmVzOyBmaWxlcyBvbGRlciB0aGFuIEtFRVBfREFZUyBhcmUgZ29uZQogICAgY3V0b2ZmID0gKHQgLSBkYXRldGltZS50aW1lZGVsdGEoZGF5cz1LRUVQX0RBWVMpKS5zdHJmdGltZSgiJVklbSVkIikKICAgIGZvciBvbGQgaW4gZ2xvYi5nbG9iKG9zLnBhdGguam9pbihMT0dfRElSLCAiZ3B1LSouanNvbiIpKToKICAgICAgICBkYXkgPSBvcy5wYXRoLmJhc2VuYW1lKG9sZClbNDoxMl0KICAgICAgICBpZiBkYXkuaXNkaWdpdCgpIGFuZCBkYXkgPCBjdXRvZmY6CiAgICAgICAgICAgIG9zLnJlbW92ZShvbGQpCiAgICByZXR1cm4gMCBpZiBoZWFsdGh5IGVsc2UgMQoKCmRlZiBoZWFsdGgoKToKICAgICIiIihIVFRQIHN0YXR1cywgcmljaCBoZWFsdGggc3RhdGUpIGZyb20gdGhlIGxhc3Qgc2FtcGxlOyBzdGFsZSBhZnRlciA1IG1pbnV0ZXMuIiIiCiAgICB0cnk6CiAgICAgICAgd2l0aCBvcGVuKG9zLnBhdGguam9pbihTVEFURV9ESVIsICJoZWFsdGguanNvbiIpKSBhcyBmOgogICAgICAgICAgICBzID0ganNvbi5sb2FkKGYpCiAgICAgICAgYXQgPSBkYXRldGltZS5kYXRldGltZS5zdHJwdGltZShzWyJ0aW1lIl0sICIlWS0lbS0lZFQlSDolTTolU1oiKS5yZXBsYWNlKAogICAgICAgICAgICB0emluZm89ZGF0ZXRpbWUudGltZXpvbmUudXRjCiAgICAgICAgKQogICAgICAgIGZyZXNoID0gKG5vdygpIC0gYXQpLnRvdGFsX3NlY29uZHMoKSA8IDMwMAogICAgICAgIGlmIHMuZ2V0KCJoZWFsdGh5IikgYW5kIGZyZXNoOgogICAgICAgICAgICByZXR1cm4gMjAwLCAiSGVhbHRoeSIKICAgIGV4Y2VwdCAoT1NFcnJvciwgVmFsdWVFcnJvciwgS2V5RXJyb3IpOgogICAgICAgIHBhc3MKICAgIHJldHVybiA1MDMsICJVbmhlYWx0aHkiCgoKY2xhc3MgSGFuZGxlcihodHRwLnNlcnZlci5CYXNlSFRUUFJlcXVlc3RIYW5kbGVyKToKICAgIGRlZiBkb19HRVQoc2VsZik6CiAgICAgICAgY29kZSwgc3RhdGUgPSBoZWFsdGgoKQogICAgICAgIGJvZHkgPSBqc29uLmR1bXBzKHsiQXBwbGljYXRpb25IZWFsdGhTdGF0ZSI6IHN0YXRlfSkuZW5jb2RlKCkKICAgICAgICBzZWxmLnNlbmRfcmVzcG9uc2UoY29kZSkKICAgICAgICBzZWxmLnNlbmRfaGVhZGVyKCJDb250ZW50LVR5cGUiLCAiYXBwbGljYXRpb24vanNvbiIpCiAgICAgICAgc2VsZi5zZW5kX2hlYWRlcigiQ29udGVudC1MZW5ndGgiLCBzdHIobGVuKGJvZHkpKSkKICAgICAgICBzZWxmLmVuZF9oZWFkZXJzKCkKICAgICAgICBzZWxmLndmaWxlLndyaXRlKGJvZHkpCgogICAgZGVmIGxvZ19tZXNzYWdlKHNlbGYsICphcmdzKToKICAgICAgICBwYXNzCgoKZGVmIG1haW4oYXJndik6CiAgICBpZiBsZW4oYXJndikgPj0gMiBhbmQgYXJndlsxXSA9PSAiY29sbGVjdCI6CiAgICAgICAgZXhwZWN0ZWQgPSBpbnQoYXJndlsyXSkgaWYgbGVuKGFyZ3YpID4gMiBlbHNlIDEKICAgICAgICByZXR1cm4gY29sbGVjdChleHBlY3RlZCkKICAgIGlmIGxlbihhcmd2KSA9PSAzIGFuZCBhcmd2WzFdID09ICJzZXJ2ZSI6CiAgICAgICAgc2VydmVyID0gaHR0cC5zZXJ2ZXIuSFRUUFNlcnZlcigoIjEyNy4wLjAuMSIsIGludChhcmd2WzJdKSksIEhhbmRsZXIpCiAgICAgICAgc2VydmVyLnNlcnZlX2ZvcmV2ZXIoKQogICAgICAgIHJldHVybiAwCiAgICBpZiBsZW4oYXJndikgPT0gMiBhbmQgYXJndlsxXSA9PSAiaGVhbHRoIjoKICAgICAgICBjb2RlLCBzdGF0ZSA9IGhlYWx0aCgpCiAgICAgICAgcHJpbnQoc3RhdGUpCiAgICAgICAgcmV0dXJuIDAgaWYgY29kZSA9PSAyMDAgZWxzZSAxCiAgICBzeXMuc3RkZXJyLndyaXRlKCJ1c2FnZTogZ3B1Zm9ybS1ncHUgY29sbGVjdCBFWFBFQ1RFRF9HUFVTIHwgc2VydmUgUE9SVCB8IGhlYWx0aFxuIikKICAgIHJldHVybiAyCgoKaWYgX19uYW1lX18gPT0gIl9fbWFpbl9fIjoKICAgIHN5cy5leGl0KG1haW4oc3lzLmFyZ3YpKQpHUFVGT1JNX0VPRgpjaG1vZCAwNzU1IC91c3IvbG9jYWwvbGliL2dwdWZvcm0vZ3B1Zm9ybS1ncHUKY2F0ID4gL2V0Yy9zeXN0ZW1kL3N5c3RlbS9ncHVmb3JtLWdwdS1jb2xsZWN0LnNlcnZpY2UgPDwnR1BVRk9STV9FT0YnCltVbml0XQpEZXNjcmlwdGlvbj1ncHVmb3JtIEdQVSBzYW1wbGUgKG52aWRpYS1zbWkgdG8gL3Zhci9sb2cvZ3B1Zm9ybS9ncHUtKi5qc29uKQoKW1NlcnZpY2VdClR5cGU9b25lc2hvdApFeGVjU3RhcnQ9L3Vzci9sb2NhbC9saWIvZ3B1Zm9ybS9ncHVmb3JtLWdwdSBjb2xsZWN0IDEKU3VjY2Vzc0V4aXRTdGF0dXM9MQpHUFVGT1JNX0VPRgpjYXQgPiAvZXRjL3N5c3RlbWQvc3lzdGVtL2dwdWZvcm0tZ3B1LWNvbGxlY3QudGltZXIgPDwnR1BVRk9STV9FT0YnCltVbml0XQpEZXNjcmlwdGlvbj1ncHVmb3JtIEdQVSBzYW1wbGUgZXZlcnkgbWludXRlCgpbVGltZXJdCk9uQm9vdFNlYz02MHMKT25Vbml0QWN0aXZlU2VjPTYwcwpBY2N1cmFjeVNlYz01cwoKW0luc3RhbGxdCldhbnRlZEJ5PXRpbWVycy50YXJnZXQKR1BVRk9STV9FT0YKY2F0ID4gL2V0Yy9zeXN0ZW1kL3N5c3RlbS9ncHVmb3JtLWdwdS1oZWFsdGguc2VydmljZSA8PCdHUFVGT1JNX0VPRicKW1VuaXRdCkRlc2NyaXB0aW9uPWdwdWZvcm0gR1BVIGhlYWx0aCBlbmRwb2ludCAoMTI3LjAuMC4xOjg3MTEpCkFmdGVyPW5ldHdvcmsudGFyZ2V0CgpbU2VydmljZV0KRXhlY1N0YXJ0PS91c3IvbG9jYWwvbGliL2dwdWZvcm0vZ3B1Zm9ybS1ncHUgc2VydmUgODcxMQpSZXN0YXJ0PWFsd2F5cwpSZXN0YXJ0U2VjPTUKRHluYW1pY1VzZXI9eWVzClJlYWRPbmx5UGF0aHM9LwoKW0luc3RhbGxdCldhbnRlZEJ5PW11bHRpLXVzZXIudGFyZ2V0CkdQVUZPUk1fRU9GCnN5c3RlbWN0bCBkYWVtb24tcmVsb2FkCnN5c3RlbWN0bCBlbmFibGUgLS1ub3cgZ3B1Zm9ybS1ncHUtY29sbGVjdC50aW1lciBncHVmb3JtLWdwdS1oZWFsdGguc2VydmljZQo='

// ---------------------------------------------------------------- network
// One VNet, a workload subnet and a private endpoint subnet. Subnets have no default outbound
// access; the NAT gateway gives the VMs egress (the GPU driver extension downloads the driver).

resource nsgWorkload 'Microsoft.Network/networkSecurityGroups@2025-05-01' = {
  name: 'nsg-variant-china-workload'
  location: location
  tags: tags
  properties: {
    // Only the spec's inbound allow rules; Azure's default rules deny all other inbound traffic.
    securityRules: [
    ]
  }
}

resource nsgPrivateEndpoints 'Microsoft.Network/networkSecurityGroups@2025-05-01' = {
  name: 'nsg-variant-china-private-endpoints'
  location: location
  tags: tags
  properties: {
    securityRules: []
  }
}

// Pool across zones 1, 2: a zone-redundant StandardV2 NAT gateway and public IP keep egress when one zone fails (a Standard gateway lives in one zone).
resource natPublicIp 'Microsoft.Network/publicIPAddresses@2025-05-01' = {
  name: 'pip-variant-china-nat'
  location: location
  tags: tags
  zones: [
    '1'
    '2'
    '3'
  ]
  sku: {
    name: 'StandardV2'
    tier: 'Regional'
  }
  properties: {
    publicIPAllocationMethod: 'Static'
    publicIPAddressVersion: 'IPv4'
  }
}

resource natGateway 'Microsoft.Network/natGateways@2025-05-01' = {
  name: 'ng-variant-china'
  location: location
  tags: tags
  zones: [
    '1'
    '2'
    '3'
  ]
  sku: {
    name: 'StandardV2'
  }
  properties: {
    idleTimeoutInMinutes: 4
    publicIpAddresses: [
      {
        id: natPublicIp.id
      }
    ]
  }
}

resource vnet 'Microsoft.Network/virtualNetworks@2025-05-01' = {
  name: 'vnet-variant-china'
  location: location
  tags: tags
  properties: {
    addressSpace: {
      addressPrefixes: [
        '10.72.0.0/16'
      ]
    }
    // Subnets inline, so a redeployment never tries to delete them.
    subnets: [
      {
        name: 'snet-workload'
        properties: {
          addressPrefix: '10.72.0.0/24'
          defaultOutboundAccess: false
          networkSecurityGroup: {
            id: nsgWorkload.id
          }
          natGateway: {
            id: natGateway.id
          }
        }
      }
      {
        name: 'snet-private-endpoints'
        properties: {
          addressPrefix: '10.72.1.0/27'
          defaultOutboundAccess: false
          privateEndpointNetworkPolicies: 'Enabled'
          networkSecurityGroup: {
            id: nsgPrivateEndpoints.id
          }
        }
      }
    ]
  }

  resource workloadSubnet 'subnets' existing = {
    name: 'snet-workload'
  }

  resource privateEndpointSubnet 'subnets' existing = {
    name: 'snet-private-endpoints'
  }
}

// ---------------------------------------------------------------- identity
// The pool's user-assigned identity and every role assignment of the deployment, each scoped
// to one resource with a deterministic name: guid(scope, principal, role).

resource identity 'Microsoft.ManagedIdentity/userAssignedIdentities@2024-11-30' = {
  name: 'id-variant-china'
  location: location
  tags: tags
}

// Key Vault Secrets User: The pool's identity reads secrets from the vault.
resource identitySecretsUser 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(vault.id, identity.id, '4633458b-17de-408a-b874-0445c86b69e6')
  scope: vault
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '4633458b-17de-408a-b874-0445c86b69e6')
    principalId: identity.properties.principalId
    principalType: 'ServicePrincipal'
    description: 'The pool\'s identity reads secrets from the vault.'
  }
}

// Storage Queue Data Message Processor: The pool's identity peeks, receives and deletes messages of the queue batch-jobs.
resource identityQueueProcessor 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(storageQueue.id, identity.id, '8a0f0c08-91a1-4084-bc3d-661d67233fed')
  scope: storageQueue
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '8a0f0c08-91a1-4084-bc3d-661d67233fed')
    principalId: identity.properties.principalId
    principalType: 'ServicePrincipal'
    description: 'The pool\'s identity peeks, receives and deletes messages of the queue batch-jobs.'
  }
}

// Key Vault Crypto Service Encryption User: The disk encryption set wraps and unwraps disk keys with the customer-managed key.
resource desCryptoUser 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(cmkKey.id, des.id, 'e147488a-f6f5-4113-8e2d-b22465e65bf6')
  scope: cmkKey
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', 'e147488a-f6f5-4113-8e2d-b22465e65bf6')
    principalId: des.identity.principalId
    principalType: 'ServicePrincipal'
    description: 'The disk encryption set wraps and unwraps disk keys with the customer-managed key.'
  }
}

// Monitoring Metrics Publisher: The pool's identity publishes GPU telemetry through the data collection rule.
resource identityGpuDcrPublisher 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(gpuDcr.id, identity.id, '3913510d-42f4-4d42-a2a6-6cf4e5e8ba81')
  scope: gpuDcr
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '3913510d-42f4-4d42-a2a6-6cf4e5e8ba81')
    principalId: identity.properties.principalId
    principalType: 'ServicePrincipal'
    description: 'The pool\'s identity publishes GPU telemetry through the data collection rule.'
  }
}

// ---------------------------------------------------------------- key vault and encryption
// RBAC authorization, soft delete, purge protection and a firewall that denies by default.

// Globally unique and stable per resource group: at most 24 characters.
var vaultName = 'kv-variant-${uniqueString(resourceGroup().id)}'

resource vault 'Microsoft.KeyVault/vaults@2025-05-01' = {
  name: vaultName
  location: location
  tags: tags
  properties: {
    tenantId: subscription().tenantId
    sku: {
      family: 'A'
      name: 'standard'
    }
    enableRbacAuthorization: true
    enableSoftDelete: true
    softDeleteRetentionInDays: 90
    enablePurgeProtection: true
    enabledForDeployment: false
    enabledForTemplateDeployment: false
    enabledForDiskEncryption: false
    publicNetworkAccess: 'Disabled'
    networkAcls: {
      bypass: 'AzureServices'
      defaultAction: 'Deny'
      ipRules: []
      virtualNetworkRules: []
    }
  }
}

// The vault is reachable only through this private endpoint and its private DNS zone.
resource vaultDnsZone 'Microsoft.Network/privateDnsZones@2024-06-01' = {
  // privatelink.vaultcore.<the cloud's domain>: environment() gives the vault suffix of the target cloud
  name: 'privatelink${replace(environment().suffixes.keyvaultDns, 'vault', 'vaultcore')}'
  location: 'global'
  tags: tags

  resource vnetLink 'virtualNetworkLinks' = {
    name: 'link-vnet-variant-china'
    location: 'global'
    tags: tags
    properties: {
      registrationEnabled: false
      virtualNetwork: {
        id: vnet.id
      }
    }
  }
}

resource vaultPrivateEndpoint 'Microsoft.Network/privateEndpoints@2025-05-01' = {
  name: 'pep-variant-china-vault'
  location: location
  tags: tags
  properties: {
    subnet: {
      id: vnet::privateEndpointSubnet.id
    }
    customNetworkInterfaceName: 'pep-variant-china-vault-nic'
    privateLinkServiceConnections: [
      {
        name: 'pep-variant-china-vault'
        properties: {
          privateLinkServiceId: vault.id
          groupIds: [
            'vault'
          ]
        }
      }
    ]
  }

  resource zoneGroup 'privateDnsZoneGroups' = {
    name: 'default'
    properties: {
      privateDnsZoneConfigs: [
        {
          name: 'vault'
          properties: {
            privateDnsZoneId: vaultDnsZone.id
          }
        }
      ]
    }
  }
}

// Customer-managed key for the disks: rotated yearly, each version expires after two years.
resource cmkKey 'Microsoft.KeyVault/vaults/keys@2025-05-01' = {
  // checkov:skip=CKV_AZURE_112: software-protected RSA key: the spec's vault SKU is standard; HSM-backed keys need security.keyVault.sku: premium
  parent: vault
  name: 'disk-cmk'
  tags: tags
  properties: {
    kty: 'RSA'
    keySize: 3072
    keyOps: [
      'wrapKey'
      'unwrapKey'
    ]
    attributes: {
      enabled: true
    }
    rotationPolicy: {
      attributes: {
        expiryTime: 'P2Y'
      }
      lifetimeActions: [
        {
          trigger: {
            timeAfterCreate: 'P1Y'
          }
          action: {
            type: 'rotate'
          }
        }
        {
          trigger: {
            timeBeforeExpiry: 'P30D'
          }
          action: {
            type: 'notify'
          }
        }
      ]
    }
  }
}

// The Compute API takes only a versioned key URL (keyUriWithVersion), "regardless of
// rotationToLatestKeyVersionEnabled" (KeyForDiskEncryptionSet, Microsoft.Compute 2025-01-02);
// with rotation on, the set still moves to each new key version on its own.
resource des 'Microsoft.Compute/diskEncryptionSets@2025-01-02' = {
  name: 'des-variant-china'
  location: location
  tags: tags
  identity: {
    type: 'SystemAssigned'
  }
  properties: {
    encryptionType: 'EncryptionAtRestWithCustomerKey'
    rotationToLatestKeyVersionEnabled: true
    activeKey: {
      keyUrl: cmkKey.properties.keyUriWithVersion
      sourceVault: {
        id: vault.id
      }
    }
  }
}

// ---------------------------------------------------------------- compute
// Flexible orchestration, Standard_NC24ads_A100_v4, image ubuntu-22.04. No public IPs on the instances.

resource vmss 'Microsoft.Compute/virtualMachineScaleSets@2025-11-01' = {
  // checkov:skip=CKV_AZURE_95: checkov fails every Flexible scale set here; automatic OS image upgrades would also swap the image under the GPU driver and CUDA stack. Roll out a new image by redeploying after testing the driver
  name: 'vmss-variant-china'
  location: location
  tags: tags
  zones: [
    '1'
    '2'
  ]
  sku: {
    name: 'Standard_NC24ads_A100_v4'
    tier: 'Standard'
    capacity: 0
  }
  identity: {
    type: 'UserAssigned'
    userAssignedIdentities: {
      '${identity.id}': {}
    }
  }
  properties: {
    orchestrationMode: 'Flexible'
    platformFaultDomainCount: 1
    singlePlacementGroup: false
    scaleInPolicy: {
      rules: [
        'Default'
      ]
      forceDeletion: false
    }
    automaticRepairsPolicy: {
      enabled: true
      gracePeriod: 'PT30M'
      repairAction: 'Replace'
    }
    virtualMachineProfile: {
      osProfile: {
        computerNamePrefix: 'variant-china'
        adminUsername: adminUsername
        linuxConfiguration: {
          disablePasswordAuthentication: true
          provisionVMAgent: true
          ssh: {
            publicKeys: [
              {
                path: '/home/${adminUsername}/.ssh/authorized_keys'
                keyData: sshPublicKey
              }
            ]
          }
        }
        customData: customData
        allowExtensionOperations: true
      }
      storageProfile: {
        imageReference: {
          publisher: 'Canonical'
          offer: '0001-com-ubuntu-server-jammy'
          sku: '22_04-lts-gen2'
          version: 'latest'
        }
        osDisk: {
          createOption: 'FromImage'
          caching: 'ReadWrite'
          diskSizeGB: 128
          managedDisk: {
            storageAccountType: 'Premium_LRS'
            diskEncryptionSet: {
              id: des.id
            }
          }
          deleteOption: 'Delete'
        }
      }
      securityProfile: {
        encryptionAtHost: true
        // Explicit: Trusted Launch by default would turn Secure Boot on under the GPU driver.
        securityType: 'Standard'
      }
      networkProfile: {
        networkApiVersion: '2022-11-01'
        networkInterfaceConfigurations: [
          {
            name: 'nic-variant-china'
            properties: {
              primary: true
              enableAcceleratedNetworking: true
              enableIPForwarding: false
              deleteOption: 'Delete'
              ipConfigurations: [
                {
                  name: 'ipconfig1'
                  properties: {
                    primary: true
                    subnet: {
                      id: vnet::workloadSubnet.id
                    }
                  }
                }
              ]
            }
          }
        ]
      }
      diagnosticsProfile: {
        // Boot diagnostics in managed storage.
        bootDiagnostics: {
          enabled: true
        }
      }
      extensionProfile: {
        extensions: [
          {
            // GPU driver: cuda (NvidiaGpuDriverLinux), CUDA 12.8
            name: 'NvidiaGpuDriverLinux'
            properties: {
              publisher: 'Microsoft.HpcCompute'
              type: 'NvidiaGpuDriverLinux'
              typeHandlerVersion: '1.6'
              autoUpgradeMinorVersion: true
              settings: {}
            }
          }
          {
            // Azure Monitor Agent: ships the GPU collector's JSON lines; signs in with the pool's user-assigned identity (mi_res_id).
            name: 'AzureMonitorLinuxAgent'
            properties: {
              publisher: 'Microsoft.Azure.Monitor'
              type: 'AzureMonitorLinuxAgent'
              typeHandlerVersion: '1.0'
              autoUpgradeMinorVersion: true
              enableAutomaticUpgrade: true
              settings: {
                authentication: {
                  managedIdentity: {
                    'identifier-name': 'mi_res_id'
                    'identifier-value': identity.id
                  }
                }
              }
            }
          }
          {
            // Application health from the GPU collector (127.0.0.1): unhealthy when a GPU is missing or nvidia-smi fails; automatic repairs replaces the VM.
            name: 'HealthExtension'
            properties: {
              publisher: 'Microsoft.ManagedServices'
              type: 'ApplicationHealthLinux'
              typeHandlerVersion: '2.0'
              autoUpgradeMinorVersion: true
              enableAutomaticUpgrade: true
              settings: {
                protocol: 'http'
                port: 8711
                requestPath: '/health'
                intervalInSeconds: 30
                numberOfProbes: 2
              }
              provisionAfterExtensions: [
                'NvidiaGpuDriverLinux'
              ]
            }
          }
        ]
      }
    }
  }
  dependsOn: [
    // the disk encryption set must be able to use the key before disks are created
    desCryptoUser
  ]
}

// ---------------------------------------------------------------- autoscale
// Storage account for the work queue: Entra ID only (no shared keys), HTTPS and TLS 1.2, no
// public access; the VMs reach it through a private endpoint.
resource storage 'Microsoft.Storage/storageAccounts@2025-01-01' = {
  name: 'stchinajobs'
  location: location
  tags: tags
  kind: 'StorageV2'
  sku: {
    name: 'Standard_GRS'
  }
  properties: {
    accessTier: 'Hot'
    allowBlobPublicAccess: false
    allowSharedKeyAccess: false
    defaultToOAuthAuthentication: true
    minimumTlsVersion: 'TLS1_2'
    supportsHttpsTrafficOnly: true
    publicNetworkAccess: 'Disabled'
    networkAcls: {
      bypass: 'AzureServices'
      defaultAction: 'Deny'
      ipRules: []
      virtualNetworkRules: []
    }
  }
}

resource storageQueueService 'Microsoft.Storage/storageAccounts/queueServices@2025-01-01' = {
  parent: storage
  name: 'default'
}

resource storageQueue 'Microsoft.Storage/storageAccounts/queueServices/queues@2025-01-01' = {
  parent: storageQueueService
  name: 'batch-jobs'
}

resource queueDnsZone 'Microsoft.Network/privateDnsZones@2024-06-01' = {
  name: 'privatelink.queue.${environment().suffixes.storage}'
  location: 'global'
  tags: tags

  resource vnetLink 'virtualNetworkLinks' = {
    name: 'link-vnet-variant-china'
    location: 'global'
    tags: tags
    properties: {
      registrationEnabled: false
      virtualNetwork: {
        id: vnet.id
      }
    }
  }
}

resource queuePrivateEndpoint 'Microsoft.Network/privateEndpoints@2025-05-01' = {
  name: 'pep-variant-china-queue'
  location: location
  tags: tags
  properties: {
    subnet: {
      id: vnet::privateEndpointSubnet.id
    }
    customNetworkInterfaceName: 'pep-variant-china-queue-nic'
    privateLinkServiceConnections: [
      {
        name: 'pep-variant-china-queue'
        properties: {
          privateLinkServiceId: storage.id
          groupIds: [
            'queue'
          ]
        }
      }
    ]
  }

  resource zoneGroup 'privateDnsZoneGroups' = {
    name: 'default'
    properties: {
      privateDnsZoneConfigs: [
        {
          name: 'queue'
          properties: {
            privateDnsZoneId: queueDnsZone.id
          }
        }
      ]
    }
  }
}

// Profiles: the default first, then each recurring profile. A recurring profile has no end;
// it applies until the next one starts, so every schedule has a start and a restore profile.
resource autoscale 'Microsoft.Insights/autoscaleSettings@2022-10-01' = {
  name: 'as-variant-china'
  location: location
  tags: tags
  properties: {
    name: 'as-variant-china'
    enabled: true
    targetResourceUri: vmss.id
    profiles: [
      // Applies whenever no recurring profile has started.
      {
        name: 'default'
        capacity: {
          minimum: '0'
          maximum: '2'
          default: '0'
        }
        rules: [
          // Scale out when the backlog per instance exceeds 1 messages.
          {
            metricTrigger: {
              metricName: 'ApproximateMessageCount'
              metricNamespace: ''
              metricResourceUri: '${storage.id}/services/queue/queues/${storageQueue.name}'
              timeGrain: 'PT1M'
              statistic: 'Average'
              timeWindow: 'PT5M'
              timeAggregation: 'Average'
              operator: 'GreaterThan'
              threshold: 1
              dividePerInstance: false
            }
            scaleAction: {
              direction: 'Increase'
              type: 'ChangeCount'
              value: '1'
              cooldown: 'PT5M'
            }
          }
          // Scale in when the queue is empty (no lower threshold is flap-safe for this target).
          {
            metricTrigger: {
              metricName: 'ApproximateMessageCount'
              metricNamespace: ''
              metricResourceUri: '${storage.id}/services/queue/queues/${storageQueue.name}'
              timeGrain: 'PT1M'
              statistic: 'Average'
              timeWindow: 'PT5M'
              timeAggregation: 'Average'
              operator: 'LessThanOrEqual'
              threshold: 0
              dividePerInstance: false
            }
            scaleAction: {
              direction: 'Decrease'
              type: 'ChangeCount'
              value: '1'
              cooldown: 'PT15M'
            }
          }
        ]
      }
    ]
    notifications: [
      {
        operation: 'Scale'
        email: {
          sendToSubscriptionAdministrator: false
          sendToSubscriptionCoAdministrators: false
          customEmails: [
            'ops@example.com'
          ]
        }
        webhooks: []
      }
    ]
    predictiveAutoscalePolicy: {
      scaleMode: 'Disabled'
    }
  }
}

// ---------------------------------------------------------------- monitoring

resource workspace 'Microsoft.OperationalInsights/workspaces@2025-02-01' = {
  name: 'log-variant-china'
  location: location
  tags: tags
  properties: {
    sku: {
      name: 'PerGB2018'
    }
    retentionInDays: 30
    features: {
      enableLogAccessUsingOnlyResourcePermissions: true
    }
  }
}

resource vaultDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'to-log-analytics'
  scope: vault
  properties: {
    workspaceId: workspace.id
    logs: [
      {
        category: 'AuditEvent'
        enabled: true
      }
      {
        category: 'AzurePolicyEvaluationDetails'
        enabled: true
      }
    ]
    metrics: [
      {
        category: 'AllMetrics'
        enabled: true
      }
    ]
  }
}

resource autoscaleDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'to-log-analytics'
  scope: autoscale
  properties: {
    workspaceId: workspace.id
    logs: [
      {
        category: 'AutoscaleEvaluations'
        enabled: true
      }
      {
        category: 'AutoscaleScaleActions'
        enabled: true
      }
    ]
    metrics: [
      {
        category: 'AllMetrics'
        enabled: true
      }
    ]
  }
}

resource queueServiceDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'to-log-analytics'
  scope: storageQueueService
  properties: {
    workspaceId: workspace.id
    logs: [
      {
        category: 'StorageRead'
        enabled: true
      }
      {
        category: 'StorageWrite'
        enabled: true
      }
      {
        category: 'StorageDelete'
        enabled: true
      }
    ]
    metrics: [
      {
        category: 'Transaction'
        enabled: true
      }
    ]
  }
}

resource actionGroup 'Microsoft.Insights/actionGroups@2023-01-01' = {
  name: 'ag-variant-china'
  location: 'global'
  tags: tags
  properties: {
    groupShortName: 'variant-chin'
    enabled: true
    emailReceivers: [
      {
        name: 'email-1'
        emailAddress: 'ops@example.com'
        useCommonAlertSchema: true
      }
    ]
  }
}

// The pool has run at its maximum of 2 instances for an hour: the queue outgrows the pool (raise capacity.max or the quota).
resource alertCapacityAtMax 'Microsoft.Insights/metricAlerts@2018-03-01' = {
  name: 'alert-variant-china-capacity-at-max'
  location: 'global'
  tags: tags
  properties: {
    description: 'The pool has run at its maximum of 2 instances for an hour: the queue outgrows the pool (raise capacity.max or the quota).'
    severity: 2
    enabled: true
    autoMitigate: true
    scopes: [
      autoscale.id
    ]
    evaluationFrequency: 'PT15M'
    windowSize: 'PT1H'
    criteria: {
      'odata.type': 'Microsoft.Azure.Monitor.SingleResourceMultipleMetricCriteria'
      allOf: [
        {
          criterionType: 'StaticThresholdCriterion'
          name: 'ObservedCapacity'
          metricNamespace: 'Microsoft.Insights/autoscalesettings'
          metricName: 'ObservedCapacity'
          operator: 'GreaterThanOrEqual'
          threshold: 2
          timeAggregation: 'Average'
        }
      ]
    }
    actions: [
      {
        actionGroupId: actionGroup.id
      }
    ]
  }
}

// More than 2 messages wait in the queues of stchinajobs (hourly capacity metric): more than the full pool works through.
resource alertQueueBacklog 'Microsoft.Insights/metricAlerts@2018-03-01' = {
  name: 'alert-variant-china-queue-backlog'
  location: 'global'
  tags: tags
  properties: {
    description: 'More than 2 messages wait in the queues of stchinajobs (hourly capacity metric): more than the full pool works through.'
    severity: 2
    enabled: true
    autoMitigate: true
    scopes: [
      storageQueueService.id
    ]
    evaluationFrequency: 'PT1H'
    windowSize: 'PT6H'
    criteria: {
      'odata.type': 'Microsoft.Azure.Monitor.SingleResourceMultipleMetricCriteria'
      allOf: [
        {
          criterionType: 'StaticThresholdCriterion'
          name: 'QueueMessageCount'
          metricNamespace: 'Microsoft.Storage/storageAccounts/queueServices'
          metricName: 'QueueMessageCount'
          operator: 'GreaterThan'
          threshold: 2
          timeAggregation: 'Average'
        }
      ]
    }
    actions: [
      {
        actionGroupId: actionGroup.id
      }
    ]
  }
}

// More than a tenth of the pool's VMs have been unavailable for 15 minutes (host or health failures).
resource alertVmAvailability 'Microsoft.Insights/metricAlerts@2018-03-01' = {
  name: 'alert-variant-china-vm-availability'
  location: 'global'
  tags: tags
  properties: {
    description: 'More than a tenth of the pool\'s VMs have been unavailable for 15 minutes (host or health failures).'
    severity: 1
    enabled: true
    autoMitigate: true
    scopes: [
      vmss.id
    ]
    evaluationFrequency: 'PT5M'
    windowSize: 'PT15M'
    criteria: {
      'odata.type': 'Microsoft.Azure.Monitor.SingleResourceMultipleMetricCriteria'
      allOf: [
        {
          criterionType: 'StaticThresholdCriterion'
          name: 'VmAvailabilityMetric'
          metricNamespace: 'Microsoft.Compute/virtualMachineScaleSets'
          metricName: 'VmAvailabilityMetric'
          operator: 'LessThan'
          threshold: json('0.9')
          timeAggregation: 'Average'
        }
      ]
    }
    actions: [
      {
        actionGroupId: actionGroup.id
      }
    ]
  }
}

// ---------------------------------------------------------------- GPU monitoring
// The collector (nvidia-smi once a minute on every VM; cloud-init and systemd on Linux, the Custom
// Script Extension and scheduled tasks on Windows) writes JSON lines to
// /var/log/gpuform/gpu-*.json; the Azure Monitor Agent on the scale set sends them through the data
// collection rule into the custom table GpuTelemetry_CL of the pool's workspace.

// The input stream: a `Custom-` stream, as Learn documents for JSON log files (the REST spec's
// list of known dataFlows streams names only the built-in Microsoft-* ones).
var gpuStream = 'Custom-GpuTelemetry'

resource gpuTable 'Microsoft.OperationalInsights/workspaces/tables@2025-02-01' = {
  parent: workspace
  name: 'GpuTelemetry_CL'
  properties: {
    plan: 'Analytics'
    retentionInDays: 30
    schema: {
      name: 'GpuTelemetry_CL'
      description: 'GPU telemetry from the gpuform collector: one row per GPU per minute, or one health row per VM.'
      columns: [
        {
          name: 'TimeGenerated'
          type: 'dateTime'
          description: 'When the collector sampled (UTC)'
        }
        {
          name: 'Computer'
          type: 'string'
          description: 'Host name of the VM'
        }
        {
          name: 'VmId'
          type: 'string'
          description: 'VM id from the instance metadata service'
        }
        {
          name: 'Priority'
          type: 'string'
          description: 'Spot or Regular'
        }
        {
          name: 'ExpectedGpus'
          type: 'int'
          description: 'GPUs the VM size has (whole GPUs; a partition counts as one)'
        }
        {
          name: 'GpuIndex'
          type: 'int'
          description: 'nvidia-smi index; empty on a health row'
        }
        {
          name: 'GpuUuid'
          type: 'string'
          description: 'GPU UUID'
        }
        {
          name: 'GpuName'
          type: 'string'
          description: 'GPU model as nvidia-smi names it'
        }
        {
          name: 'UtilizationPercent'
          type: 'real'
          description: 'utilization.gpu (percent)'
        }
        {
          name: 'MemoryUsedMiB'
          type: 'real'
          description: 'memory.used (MiB)'
        }
        {
          name: 'MemoryTotalMiB'
          type: 'real'
          description: 'memory.total (MiB)'
        }
        {
          name: 'TemperatureC'
          type: 'real'
          description: 'temperature.gpu (°C)'
        }
        {
          name: 'PowerDrawW'
          type: 'real'
          description: 'power.draw (W); empty where the driver does not report it (vGPU, GRID)'
        }
        {
          name: 'EccUncorrected'
          type: 'long'
          description: 'ecc.errors.uncorrected.volatile.total since the driver loaded; empty without ECC'
        }
        {
          name: 'XidErrors'
          type: 'long'
          description: 'Xid events since the previous sample (Linux: NVRM lines of the kernel log; Windows: nvlddmkm errors in the System event log)'
        }
        {
          name: 'XidCodes'
          type: 'string'
          description: 'Distinct Xid codes, e.g. 79,48'
        }
        {
          name: 'DriverVersion'
          type: 'string'
          description: 'NVIDIA driver version'
        }
        {
          name: 'CudaVersion'
          type: 'string'
          description: 'CUDA version the driver supports'
        }
        {
          name: 'Status'
          type: 'string'
          description: 'ok, gpu-missing, nvidia-smi-failed or no-gpu'
        }
        {
          name: 'Healthy'
          type: 'boolean'
          description: 'false when the VM\'s GPUs are missing or the driver fails'
        }
        {
          name: 'Message'
          type: 'string'
          description: 'What failed, on health rows'
        }
      ]
    }
  }
}

// Ingestion endpoint of the agent (public: the agent sends over HTTPS with the pool's identity;
// nothing listens on the VMs).
resource gpuDce 'Microsoft.Insights/dataCollectionEndpoints@2023-03-11' = {
  name: 'dce-variant-china'
  location: location
  tags: tags
  kind: 'Linux'
  properties: {
    description: 'Data collection endpoint of the GPU telemetry of variant-china.'
    networkAcls: {
      publicNetworkAccess: 'Enabled'
    }
  }
}

resource gpuDcr 'Microsoft.Insights/dataCollectionRules@2023-03-11' = {
  name: 'dcr-variant-china-gpu'
  location: location
  tags: tags
  kind: 'Linux'
  properties: {
    description: 'GPU telemetry (JSON lines of the gpuform collector) into GpuTelemetry_CL.'
    dataCollectionEndpointId: gpuDce.id
    streamDeclarations: {
      'Custom-GpuTelemetry': {
        columns: [
          {
            name: 'TimeGenerated'
            type: 'datetime'
          }
          {
            name: 'Computer'
            type: 'string'
          }
          {
            name: 'VmId'
            type: 'string'
          }
          {
            name: 'Priority'
            type: 'string'
          }
          {
            name: 'ExpectedGpus'
            type: 'int'
          }
          {
            name: 'GpuIndex'
            type: 'int'
          }
          {
            name: 'GpuUuid'
            type: 'string'
          }
          {
            name: 'GpuName'
            type: 'string'
          }
          {
            name: 'UtilizationPercent'
            type: 'real'
          }
          {
            name: 'MemoryUsedMiB'
            type: 'real'
          }
          {
            name: 'MemoryTotalMiB'
            type: 'real'
          }
          {
            name: 'TemperatureC'
            type: 'real'
          }
          {
            name: 'PowerDrawW'
            type: 'real'
          }
          {
            name: 'EccUncorrected'
            type: 'long'
          }
          {
            name: 'XidErrors'
            type: 'long'
          }
          {
            name: 'XidCodes'
            type: 'string'
          }
          {
            name: 'DriverVersion'
            type: 'string'
          }
          {
            name: 'CudaVersion'
            type: 'string'
          }
          {
            name: 'Status'
            type: 'string'
          }
          {
            name: 'Healthy'
            type: 'boolean'
          }
          {
            name: 'Message'
            type: 'string'
          }
        ]
      }
    }
    dataSources: {
      logFiles: [
        {
          name: 'gpuTelemetry'
          streams: [
            'Custom-GpuTelemetry'
          ]
          filePatterns: [
            '/var/log/gpuform/gpu-*.json'
          ]
          format: 'json'
        }
      ]
    }
    destinations: {
      logAnalytics: [
        {
          name: 'workspace'
          workspaceResourceId: workspace.id
        }
      ]
    }
    dataFlows: [
      {
        streams: [
          gpuStream
        ]
        destinations: [
          'workspace'
        ]
        transformKql: 'source | project TimeGenerated = todatetime(TimeGenerated), Computer, VmId, Priority, ExpectedGpus, GpuIndex, GpuUuid, GpuName, UtilizationPercent, MemoryUsedMiB, MemoryTotalMiB, TemperatureC, PowerDrawW, EccUncorrected, XidErrors, XidCodes, DriverVersion, CudaVersion, Status, Healthy, Message'
        outputStream: 'Custom-GpuTelemetry_CL'
      }
    ]
  }
  dependsOn: [
    // the output stream is the table
    gpuTable
  ]
}

resource gpuDcrAssociation 'Microsoft.Insights/dataCollectionRuleAssociations@2023-03-11' = {
  name: 'gpu-telemetry'
  scope: vmss
  properties: {
    description: 'Every VM of the scale set sends GPU telemetry through dcr-variant-china-gpu.'
    dataCollectionRuleId: gpuDcr.id
  }
}

// Instances above the active autoscale profile's minimum whose GPUs averaged under 10% for 60 minutes: the pool is not scaling in. Check the scale-in rule (queue threshold, cooldown) and the schedule's min.
resource gpuAlertIdle 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-variant-china-gpu-idle'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'variant-china: idle GPUs above the minimum'
    description: 'Instances above the active autoscale profile\'s minimum whose GPUs averaged under 10% for 60 minutes: the pool is not scaling in. Check the scale-in rule (queue threshold, cooldown) and the schedule\'s min.'
    severity: 3
    enabled: true
    scopes: [
      workspace.id
    ]
    evaluationFrequency: 'PT15M'
    windowSize: 'PT1H'
    criteria: {
      allOf: [
        {
          query: 'GpuTelemetry_CL\n| where Status == "ok"\n| summarize AvgUtilization = avg(UtilizationPercent) by Computer\n| summarize Instances = count(), IdleInstances = countif(AvgUtilization < 10)\n| extend MinuteOfWeek = (toint(dayofweek(now()) / 1d) + 6) % 7 * 1440 + hourofday(now()) * 60 + datetime_part("minute", now())\n| extend ProfileMin = 0\n| extend IdleAboveMin = max_of(0, min_of(IdleInstances, Instances - ProfileMin))\n| extend IdleCostPerHour = round(IdleAboveMin * 0, 2)'
          timeAggregation: 'Maximum'
          metricMeasureColumn: 'IdleAboveMin'
          operator: 'GreaterThan'
          threshold: 0
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    autoMitigate: true
    actions: {
      actionGroups: [
        actionGroup.id
      ]
      // e-mail subject with the measured value (preview; the common alert schema's paths)
      actionProperties: {
        'Email.Subject': 'variant-china: \${data.alertContext.condition.allOf[0].metricValue} idle GPU instance(s) above the autoscale minimum (\${data.essentials.monitorCondition})'
      }
    }
  }
  dependsOn: [
    // the query is validated against the table
    gpuTable
  ]
}

// A GPU used more than 90% of its memory in the last 15 minutes: a model or batch change that will run out of memory. The peak is also the measurement gpuMemoryGiB asks for (`gpuform gpu-report`).
resource gpuAlertVram 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-variant-china-gpu-vram'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'variant-china: VRAM pressure'
    description: 'A GPU used more than 90% of its memory in the last 15 minutes: a model or batch change that will run out of memory. The peak is also the measurement gpuMemoryGiB asks for (`gpuform gpu-report`).'
    severity: 2
    enabled: true
    scopes: [
      workspace.id
    ]
    evaluationFrequency: 'PT5M'
    windowSize: 'PT15M'
    criteria: {
      allOf: [
        {
          query: 'GpuTelemetry_CL\n| where Status == "ok" and MemoryTotalMiB > 0\n| extend MemoryPercent = 100.0 * MemoryUsedMiB / MemoryTotalMiB\n| summarize PeakMemoryPercent = round(max(MemoryPercent), 1), PeakMemoryGiB = round(max(MemoryUsedMiB) / 1024.0, 1) by Computer, GpuIndex'
          timeAggregation: 'Maximum'
          metricMeasureColumn: 'PeakMemoryPercent'
          operator: 'GreaterThan'
          threshold: 90
          // one alert per combination of these values
          dimensions: [
            {
              name: 'Computer'
              operator: 'Include'
              values: [
                '*'
              ]
            }
            {
              name: 'GpuIndex'
              operator: 'Include'
              values: [
                '*'
              ]
            }
          ]
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    autoMitigate: true
    actions: {
      actionGroups: [
        actionGroup.id
      ]
      // e-mail subject with the measured value (preview; the common alert schema's paths)
      actionProperties: {
        'Email.Subject': 'variant-china: a GPU at \${data.alertContext.condition.allOf[0].metricValue}% of its VRAM (\${data.essentials.monitorCondition})'
      }
    }
  }
  dependsOn: [
    // the query is validated against the table
    gpuTable
  ]
}

// A VM reported Xid or uncorrected ECC errors, a GPU missing from nvidia-smi, or a failing driver. Automatic repairs replaces a VM whose health probe stays unhealthy.
resource gpuAlertFaults 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-variant-china-gpu-faults'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'variant-china: GPU faults'
    description: 'A VM reported Xid or uncorrected ECC errors, a GPU missing from nvidia-smi, or a failing driver. Automatic repairs replaces a VM whose health probe stays unhealthy.'
    severity: 1
    enabled: true
    scopes: [
      workspace.id
    ]
    evaluationFrequency: 'PT5M'
    windowSize: 'PT10M'
    criteria: {
      allOf: [
        {
          query: 'GpuTelemetry_CL\n| where Status != "ok" or XidErrors > 0 or EccUncorrected > 0\n| extend Kind = case(Status != "ok", Status, XidErrors > 0, strcat("xid ", XidCodes), "ecc-uncorrected")\n| summarize FaultSamples = count(), Kinds = make_set(Kind), LastMessage = take_any(Message) by Computer\n| extend Fault = strcat_array(array_sort_asc(Kinds), ", ")'
          timeAggregation: 'Total'
          metricMeasureColumn: 'FaultSamples'
          operator: 'GreaterThan'
          threshold: 0
          // one alert per combination of these values
          dimensions: [
            {
              name: 'Computer'
              operator: 'Include'
              values: [
                '*'
              ]
            }
            {
              name: 'Fault'
              operator: 'Include'
              values: [
                '*'
              ]
            }
          ]
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    autoMitigate: true
    actions: {
      actionGroups: [
        actionGroup.id
      ]
      // e-mail subject with the measured value (preview; the common alert schema's paths)
      actionProperties: {
        'Email.Subject': 'variant-china: GPU fault on a VM, \${data.alertContext.condition.allOf[0].metricValue} faulty sample(s) (\${data.essentials.monitorCondition})'
      }
    }
  }
  dependsOn: [
    // the query is validated against the table
    gpuTable
  ]
}

// GPU utilisation and memory per VM, instances by priority, queue length, idle GPU-hours and
// their cost this month, faults and the alerts fired.
resource gpuWorkbook 'Microsoft.Insights/workbooks@2023-06-01' = {
  name: guid(resourceGroup().id, 'variant-china-gpu-workbook')
  location: location
  tags: tags
  kind: 'shared'
  properties: {
    displayName: 'GPU pool variant-china'
    category: 'workbook'
    sourceId: workspace.id
    serializedData: '{"version":"Notebook/1.0","items":[{"type":1,"content":{"json":"## GPU pool `variant-china`\\nSampled once a minute on every VM by the gpuform collector (`nvidia-smi`) into `GpuTelemetry_CL`. Idle: under 10% utilisation; VRAM alert above 90%."}},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where Status == \\"ok\\"\\n| summarize Utilization = avg(UtilizationPercent) by Computer, bin(TimeGenerated, 5m)","size":0,"title":"GPU utilisation per VM (%)","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"timechart"},"customWidth":"50","name":"GPU utilisation per VM (%)"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where Status == \\"ok\\"\\n| summarize MemoryGiB = max(MemoryUsedMiB) / 1024.0 by Computer, bin(TimeGenerated, 5m)","size":0,"title":"GPU memory used per VM (GiB, peak GPU)","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"timechart"},"customWidth":"50","name":"GPU memory used per VM (GiB, peak GPU)"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| summarize Instances = dcount(Computer) by Priority, bin(TimeGenerated, 5m)","size":0,"title":"Instances by priority","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"areachart"},"customWidth":"50","name":"Instances by priority"},{"type":3,"content":{"version":"KqlItem/1.0","query":"AzureMetrics\\n| where MetricName in (\\"ActiveMessages\\", \\"QueueMessageCount\\", \\"ObservedCapacity\\")\\n| summarize Value = avg(Average) by MetricName, bin(TimeGenerated, 5m)","size":0,"title":"Queue length and autoscale capacity","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"timechart"},"customWidth":"50","name":"Queue length and autoscale capacity"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where TimeGenerated > startofmonth(now()) and Status == \\"ok\\"\\n| summarize Utilization = avg(UtilizationPercent) by Computer, bin(TimeGenerated, 1h)\\n| where Utilization < 10\\n| summarize IdleVmHours = count()\\n| extend IdleCostUSD = round(IdleVmHours * 0, 2)","size":0,"title":"Idle GPU-hours and their cost this month","timeContext":{"durationMs":2678400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"tiles"},"customWidth":"50","name":"Idle GPU-hours and their cost this month"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where Status != \\"ok\\" or XidErrors > 0 or EccUncorrected > 0\\n| project TimeGenerated, Computer, Status, XidErrors, XidCodes, EccUncorrected, Message\\n| order by TimeGenerated desc","size":0,"title":"GPU faults and health rows","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"table"},"customWidth":"50","name":"GPU faults and health rows"},{"type":3,"content":{"version":"KqlItem/1.0","query":"alertsmanagementresources\\n| where type =~ \\"microsoft.alertsmanagement/alerts\\"\\n| where tostring(properties.essentials.alertRule) contains \\"alert-variant-china-\\"\\n| project FiredAt = todatetime(properties.essentials.startDateTime), Rule = tostring(properties.essentials.alertRule), Severity = tostring(properties.essentials.severity), State = tostring(properties.essentials.monitorCondition)\\n| order by FiredAt desc","size":0,"title":"Alerts fired","queryType":1,"resourceType":"microsoft.resourcegraph/resources","crossComponentResources":["value::all"],"visualization":"table"},"name":"Alerts fired"}],"isLocked":false,"fallbackResourceIds":[],"$schema":"https://github.com/Microsoft/Application-Insights-Workbooks/blob/master/schema/workbook.json"}'
  }
  dependsOn: [
    gpuTable
  ]
}

// ---------------------------------------------------------------- outputs

@description('Resource id of the scale set.')
output vmssId string = vmss.id

@description('Principal id of the pool\'s managed identity (for more role assignments).')
output identityPrincipalId string = identity.properties.principalId

@description('Client id of the pool\'s managed identity (for SDK sign-in on the VMs).')
output identityClientId string = identity.properties.clientId

@description('URI of the Key Vault.')
output vaultUri string = vault.properties.vaultUri

@description('Resource id of the Log Analytics workspace.')
output logAnalyticsWorkspaceId string = workspace.id

@description('Resource id of the GPU workbook (open it in the portal: Monitor > Workbooks).')
output gpuWorkbookId string = gpuWorkbook.id
