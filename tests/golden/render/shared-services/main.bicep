// GPU pool `variant-shared`, rendered by gpuform from shared-services.yaml.
// Generated file: change the spec and run `gpuform render` instead of editing it.
// Sections: parameters, network, identity, key vault and encryption, compute, autoscale,
// monitoring, outputs. azuredeploy.json is the same deployment as ARM JSON.
targetScope = 'resourceGroup'

metadata name = 'variant-shared'

// ---------------------------------------------------------------- parameters

@description('Region of every resource. main.bicepparam sets the spec\'s region (eastus).')
param location string = resourceGroup().location

@description('Admin user name of the VMs.')
param adminUsername string = 'azureuser'

@description('SSH public key of the admin user (OpenSSH format). Password sign-in is disabled.')
param sshPublicKey string = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIT6t8MFGDBjrDDzp2JXe3CIMMd6hupoyimypHKIa8Ja ops@example.com'

@description('First day of the month the budget starts (YYYY-MM-01). Azure refuses to change the start date of an existing budget: on later deployments pass the date the budget was created with.')
param budgetStartDate string = utcNow('yyyy-MM-01')

var tags = {
  'costCenter': 'cc-1'
  'env': 'prod'
  'project': 'p'
  'team': 't'
}

// cloud-init (shared-services.yaml → compute.cloudInit, and the GPU collector of monitoring.gpu: multipart MIME), base64. Not secret: every VM can read it.
var customData = 'IyEvYmluL3NoCiMgZ3B1Zm9ybTogR1BVIGNvbGxlY3RvciAobnZpZGlhLXNtaSBvbmNlIGEgbWludXRlIC0+IC92YXIvbG9nL2dwdWZvcm0vZ3B1LSouanNvbiAtPiBBenVyZSBNb25pdG9yIEFnZW50KQojIGFuZCB0aGUgaGVhbHRoIGVuZHBvaW50IHRoZSBBcHBsaWNhdGlvbiBIZWFsdGggZXh0ZW5zaW9uIHByb2JlcyAoMTI3LjAuMC4xOjg3MTEpLgpzZXQgLWV1Cmluc3RhbGwgLWQgLW0gMDc1NSAvdXNyL2xvY2FsL2xpYi9ncHVmb3JtIC92YXIvbG9nL2dwdWZvcm0KY2F0ID4gL3Vzci9sb2NhbC9saWIvZ3B1Zm9ybS9ncHVmb3JtLWdwdSA8PCdHUFVGT1JNX0VPRicKIyEvdXNyL2Jpbi9weXRob24zCiMgZ3B1Zm9ybSBHUFUgY29sbGVjdG9yIChyZW5kZXJlZCBieSBncHVmb3JtOyBpbnN0YWxsZWQgYnkgY2xvdWQtaW5pdCwgcnVuIGJ5IHN5c3RlbWQpLgojCiMgICBncHVmb3JtLWdwdSBjb2xsZWN0IEVYUEVDVEVEIFtudmlkaWF8YW1kXQojICAgICAgICAgICAgICAgICAgICAgICAgb25jZSBhIG1pbnV0ZSAoZ3B1Zm9ybS1ncHUtY29sbGVjdC50aW1lcik6IG9uZSBKU09OIGxpbmUgcGVyIEdQVSBpbnRvCiMgICAgICAgICAgICAgICAgICAgICAgICAvdmFyL2xvZy9ncHVmb3JtL2dwdS1ZWVlZTU1ERC5qc29uLCByZWFkIGJ5IHRoZSBBenVyZSBNb25pdG9yIEFnZW50CiMgICAgICAgICAgICAgICAgICAgICAgICAoZGF0YSBjb2xsZWN0aW9uIHJ1bGUsIGxvZ0ZpbGVzL2pzb24pIGludG8gdGhlIEdwdVRlbGVtZXRyeV9DTCB0YWJsZTsKIyAgICAgICAgICAgICAgICAgICAgICAgIGEgVk0gd2hvc2UgR1BVIHRvb2wgZmFpbHMsIG9yIHRoYXQgc2hvd3MgZmV3ZXIgR1BVcyB0aGFuIGl0cyBzaXplIGhhcywKIyAgICAgICAgICAgICAgICAgICAgICAgIHdyaXRlcyBvbmUgaGVhbHRoIHJvdyAoU3RhdHVzICE9ICJvayIpIGluc3RlYWQuCiMgICAgICAgICAgICAgICAgICAgICAgICBOVklESUE6IG52aWRpYS1zbWkuIEFNRDogYW1kLXNtaSAoUk9DbSA2Lng7IGJvdGggSlNPTiBzaGFwZXMpLCBlbHNlCiMgICAgICAgICAgICAgICAgICAgICAgICByb2NtLXNtaSAob2xkZXIgaW1hZ2VzKTsgR1BVcyBjb3VudGVkIG9uIHRoZSBQQ0kgYnVzIHRvby4gQW4gQU1EIGltYWdlCiMgICAgICAgICAgICAgICAgICAgICAgICB3aXRob3V0IGVpdGhlciB0b29sIHdyaXRlcyBgdG9vbC1taXNzaW5nYCByb3dzIGFuZCBzdGF5cyBoZWFsdGh5LgojICAgZ3B1Zm9ybS1ncHUgc2VydmUgICAgdGhlIGhlYWx0aCBlbmRwb2ludCB0aGUgQXBwbGljYXRpb24gSGVhbHRoIGV4dGVuc2lvbiBwcm9iZXMKIyAgICAgICAgICAgICAgICAgICAgICAgICgxMjcuMC4wLjEgb25seSk6IDIwMCB7IkFwcGxpY2F0aW9uSGVhbHRoU3RhdGUiOiAiSGVhbHRoeSJ9IHdoaWxlIHRoZQojICAgICAgICAgICAgICAgICAgICAgICAgbGFzdCBzYW1wbGUgaXMgZnJlc2ggYW5kIGhlYWx0aHksIDUwMyAiVW5oZWFsdGh5IiBvdGhlcndpc2UuCiMKIyBQeXRob24gMyBzdGFuZGFyZCBsaWJyYXJ5IG9ubHkgKGV2ZXJ5IFVidW50dSBpbWFnZSBoYXMgcHl0aG9uMzogY2xvdWQtaW5pdCBydW5zIG9uIGl0KS4KIyBFbnZpcm9ubWVudCAodGVzdHMpOiBHUFVGT1JNX0dQVV9MT0dfRElSLCBHUFVGT1JNX0dQVV9TVEFURV9ESVIsIEdQVUZPUk1fSU1EU19GSUxFLCBHUFVGT1JNX0pPQlNfRklMRSwKIyBHUFVGT1JNX05PVyAoSVNPIDg2MDEgVVRDKSwgR1BVRk9STV9QQ0lfRElSLCBHUFVGT1JNX1JPQ01fRElSLgppbXBvcnQgZGF0ZXRpbWUKaW1wb3J0IGdsb2IKaW1wb3J0IGh0dHAuc2VydmVyCmltcG9ydCBqc29uCmltcG9ydCBvcwppbXBvcnQgcmUKaW1wb3J0IHNvY2tldAppbXBvcnQgc3VicHJvY2VzcwppbXBvcnQgc3lzCmltcG9ydCB1cmxsaWIucmVxdWVzdAoKUVVFUlkgPSAoCiAgICAidGltZXN0YW1wLGluZGV4LHV1aWQsbmFtZSx1dGlsaXphdGlvbi5ncHUsbWVtb3J5LnVzZWQsbWVtb3J5LnRvdGFsLHRlbXBlcmF0dXJlLmdwdSwiCiAgICAicG93ZXIuZHJhdyxlY2MuZXJyb3JzLnVuY29ycmVjdGVkLnZvbGF0aWxlLnRvdGFsLGRyaXZlcl92ZXJzaW9uIgopCkxPR19ESVIgPSBvcy5lbnZpcm9uLmdldCgiR1BVRk9STV9HUFVfTE9HX0RJUiIsICIvdmFyL2xvZy9ncHVmb3JtIikKU1RBVEVfRElSID0gb3MuZW52aXJvbi5nZXQoIkdQVUZPUk1fR1BVX1NUQVRFX0RJUiIsICIvcnVuL2dwdWZvcm0iKQojIFRoZSB3b3JrbG9hZCAob3Igd2hhdGV2ZXIgc3VwZXJ2aXNlcyBpdCkgbWF5IHdyaXRlIHRoZSBudW1iZXIgb2Ygam9icyBpdCBydW5zIGhlcmUsIG9uZSBpbnRlZ2VyLgpKT0JTX0ZJTEUgPSBvcy5lbnZpcm9uLmdldCgiR1BVRk9STV9KT0JTX0ZJTEUiLCAiL3J1bi9ncHVmb3JtL2pvYnMiKQpLRUVQX0RBWVMgPSAyClhJRCA9IHJlLmNvbXBpbGUociJOVlJNOiBYaWQgXChbXildKlwpOiAoXGQrKSIpCgoKZGVmIG5vdygpOgogICAgZml4ZWQgPSBvcy5lbnZpcm9uLmdldCgiR1BVRk9STV9OT1ciKQogICAgaWYgZml4ZWQ6CiAgICAgICAgcmV0dXJuIGRhdGV0aW1lLmRhdGV0aW1lLnN0cnB0aW1lKGZpeGVkLCAiJVktJW0tJWRUJUg6JU06JVNaIikucmVwbGFjZSgKICAgICAgICAgICAgdHppbmZvPWRhdGV0aW1lLnRpbWV6b25lLnV0YwogICAgICAgICkKICAgIHJldHVybiBkYXRldGltZS5kYXRldGltZS5ub3coZGF0ZXRpbWUudGltZXpvbmUudXRjKS5yZXBsYWNlKG1pY3Jvc2Vjb25kPTApCgoKZGVmIHJ1bihjbWQpOgogICAgdHJ5OgogICAgICAgIHAgPSBzdWJwcm9jZXNzLnJ1bihjbWQsIGNhcHR1cmVfb3V0cHV0PVRydWUsIHRleHQ9VHJ1ZSwgdGltZW91dD0zMCkKICAgICAgICByZXR1cm4gcC5yZXR1cm5jb2RlLCBwLnN0ZG91dCwgcC5zdGRlcnIKICAgIGV4Y2VwdCAoT1NFcnJvciwgc3VicHJvY2Vzcy5UaW1lb3V0RXhwaXJlZCkgYXMgZToKICAgICAgICByZXR1cm4gMTI3LCAiIiwgc3RyKGUpCgoKZGVmIG51bSh2KToKICAgICIiIkEgbnVtYmVyIGZyb20gbnZpZGlhLXNtaSdzIENTViwgb3IgTm9uZSBmb3IgW04vQV0sIFtOb3QgU3VwcG9ydGVkXSwgW1Vua25vd24gRXJyb3JdLiIiIgogICAgdiA9IHYuc3RyaXAoKQogICAgdHJ5OgogICAgICAgIHJldHVybiBmbG9hdCh2KQogICAgZXhjZXB0IFZhbHVlRXJyb3I6CiAgICAgICAgcmV0dXJuIE5vbmUKCgpkZWYgaW50ZWdlcih2KToKICAgIG4gPSBudW0odikKICAgIHJldHVybiBOb25lIGlmIG4gaXMgTm9uZSBlbHNlIGludChuKQoKCmRlZiBpbWRzKCk6CiAgICAiIiJQcmlvcml0eSAoU3BvdC9SZWd1bGFyKSBhbmQgVk0gaWQgZnJvbSB0aGUgaW5zdGFuY2UgbWV0YWRhdGEgc2VydmljZSwgY2FjaGVkIHBlciBib290LiIiIgogICAgY2FjaGUgPSBvcy5wYXRoLmpvaW4oU1RBVEVfRElSLCAiaW1kcy5qc29uIikKICAgIHNyYyA9IG9zLmVudmlyb24uZ2V0KCJHUFVGT1JNX0lNRFNfRklMRSIpCiAgICB0cnk6CiAgICAgICAgaWYgc3JjOgogICAgICAgICAgICB3aXRoIG9wZW4oc3JjKSBhcyBmOgogICAgICAgICAgICAgICAgcmV0dXJuIGpzb24ubG9hZChmKQogICAgICAgIHdpdGggb3BlbihjYWNoZSkgYXMgZjoKICAgICAgICAgICAgcmV0dXJuIGpzb24ubG9hZChmKQogICAgZXhjZXB0IChPU0Vycm9yLCBWYWx1ZUVycm9yKToKICAgICAgICBwYXNzCiAgICBpZiBzcmM6CiAgICAgICAgcmV0dXJuIHt9CiAgICB0cnk6CiAgICAgICAgcmVxID0gdXJsbGliLnJlcXVlc3QuUmVxdWVzdCgKICAgICAgICAgICAgImh0dHA6Ly8xNjkuMjU0LjE2OS4yNTQvbWV0YWRhdGEvaW5zdGFuY2UvY29tcHV0ZT9hcGktdmVyc2lvbj0yMDIxLTAyLTAxIiwKICAgICAgICAgICAgaGVhZGVycz17Ik1ldGFkYXRhIjogInRydWUifSwKICAgICAgICApCiAgICAgICAgd2l0aCB1cmxsaWIucmVxdWVzdC51cmxvcGVuKHJlcSwgdGltZW91dD0yKSBhcyByOgogICAgICAgICAgICBkYXRhID0ganNvbi5sb2FkKHIpCiAgICAgICAgd2l0aCBvcGVuKGNhY2hlLCAidyIpIGFzIGY6CiAgICAgICAgICAgIGpzb24uZHVtcChkYXRhLCBmKQogICAgICAgIHJldHVybiBkYXRhCiAgICBleGNlcHQgKE9TRXJyb3IsIFZhbHVlRXJyb3IpOgogICAgICAgIHJldHVybiB7fQoKCmRlZiBjdWRhX3ZlcnNpb24oKToKICAgIHJjLCBvdXQsIF8gPSBydW4oWyJudmlkaWEtc21pIl0pCiAgICBtID0gcmUuc2VhcmNoKHIiQ1VEQSBWZXJzaW9uOlxzKihbMC05Ll0rKSIsIG91dCkgaWYgcmMgPT0gMCBlbHNlIE5vbmUKICAgIHJldHVybiBtLmdyb3VwKDEpIGlmIG0gZWxzZSAiIgoKCmRlZiB4aWRfZXJyb3JzKHNpbmNlX2ZpbGUpOgogICAgIiIiWGlkIGV2ZW50cyBpbiB0aGUga2VybmVsIGxvZyBzaW5jZSB0aGUgcHJldmlvdXMgc2FtcGxlOiAoY291bnQsICI3OSw0OCIpLiIiIgogICAgc2luY2UgPSBOb25lCiAgICB0cnk6CiAgICAgICAgd2l0aCBvcGVuKHNpbmNlX2ZpbGUpIGFzIGY6CiAgICAgICAgICAgIHNpbmNlID0gZi5yZWFkKCkuc3RyaXAoKQogICAgZXhjZXB0IE9TRXJyb3I6CiAgICAgICAgcGFzcwogICAgY21kID0gWyJqb3VybmFsY3RsIiwgIi1rIiwgIi1vIiwgImNhdCIsICItLW5vLXBhZ2VyIl0KICAgIGNtZCArPSBbIi0tc2luY2UiLCBzaW5jZV0gaWYgc2luY2UgZWxzZSBbIi1iIl0KICAgIHJjLCBvdXQsIF8gPSBydW4oY21kKQogICAgY29kZXMgPSBYSUQuZmluZGFsbChvdXQpIGlmIHJjID09IDAgZWxzZSBbXQogICAgcmV0dXJuIGxlbihjb2RlcyksICIsIi5qb2luKHNvcnRlZChzZXQoY29kZXMpLCBrZXk9aW50KSkKCgojIC0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0gQU1EIChST0NtKQpWRU5ET1JTID0gKCJudmlkaWEiLCAiYW1kIikKUENJX0RJUiA9IG9zLmVudmlyb24uZ2V0KCJHUFVGT1JNX1BDSV9ESVIiLCAiL3N5cy9idXMvcGNpL2RldmljZXMiKQpST0NNX0RJUiA9IG9zLmVudmlyb24uZ2V0KCJHUFVGT1JNX1JPQ01fRElSIiwgIi9vcHQvcm9jbSIpCkFNRF9QQ0lfVkVORE9SID0gIjB4MTAwMiIKIyBQQ0kgYmFzZSBjbGFzc2VzIG9mIGEgR1BVOiAweDAzIGRpc3BsYXkgY29udHJvbGxlciAoUmFkZW9uIFBSTywgVjcxMCksIDB4MTIgcHJvY2Vzc2luZwojIGFjY2VsZXJhdG9yIChJbnN0aW5jdCk7IHRoZSBHUFVzJyBIRE1JL0RQIGF1ZGlvIGZ1bmN0aW9ucyAoMHgwNCkgYXJlIG5vdCBHUFVzCkdQVV9QQ0lfQ0xBU1NFUyA9ICgiMHgwMyIsICIweDEyIikKUk9DTV9TTUlfQVJHUyA9IFsKICAgICItLXNob3d1c2UiLCAiLS1zaG93bWVtaW5mbyIsICJ2cmFtIiwgIi0tc2hvd3RlbXAiLCAiLS1zaG93cG93ZXIiLAogICAgIi0tc2hvd3Byb2R1Y3RuYW1lIiwgIi0tc2hvd3VuaXF1ZWlkIiwgIi0tc2hvd2RyaXZlcnZlcnNpb24iLCAiLS1qc29uIiwKXQoKCmRlZiBwY2lfZ3B1cyh2ZW5kb3IpOgogICAgIiIiR1BVcyBvZiBgdmVuZG9yYCBvbiB0aGUgUENJIGJ1czogY291bnRlZCB3aXRob3V0IHRoZSBkcml2ZXIgb3IgYW55IHRvb2wuIiIiCiAgICBuID0gMAogICAgZm9yIGRldiBpbiBnbG9iLmdsb2Iob3MucGF0aC5qb2luKFBDSV9ESVIsICIqIikpOgogICAgICAgIHRyeToKICAgICAgICAgICAgd2l0aCBvcGVuKG9zLnBhdGguam9pbihkZXYsICJ2ZW5kb3IiKSkgYXMgZjoKICAgICAgICAgICAgICAgIHYgPSBmLnJlYWQoKS5zdHJpcCgpLmxvd2VyKCkKICAgICAgICAgICAgd2l0aCBvcGVuKG9zLnBhdGguam9pbihkZXYsICJjbGFzcyIpKSBhcyBmOgogICAgICAgICAgICAgICAgYyA9IGYucmVhZCgpLnN0cmlwKCkubG93ZXIoKQogICAgICAgIGV4Y2VwdCBPU0Vycm9yOgogICAgICAgICAgICBjb250aW51ZQogICAgICAgIGlmIHYgPT0gdmVuZG9yIGFuZCBjLnN0YXJ0c3dpdGgoR1BVX1BDSV9DTEFTU0VTKToKICAgICAgICAgICAgbiArPSAxCiAgICByZXR1cm4gbgoKCmRlZiBmaW5kX3Rvb2wobmFtZSk6CiAgICAiIiJgbmFtZWAgb24gUEFUSCwgZWxzZSBpbiBST0NtJ3MgYmluIGRpcmVjdG9yeSAoc3lzdGVtZCdzIFBBVEggaGFzIG5vIC9vcHQvcm9jbS9iaW4pLiIiIgogICAgZm9yIGQgaW4gb3MuZW52aXJvbi5nZXQoIlBBVEgiLCAiIikuc3BsaXQob3MucGF0aHNlcCkgKyBbb3MucGF0aC5qb2luKFJPQ01fRElSLCAiYmluIildOgogICAgICAgIHAgPSBvcy5wYXRoLmpvaW4oZCwgbmFtZSkKICAgICAgICBpZiBkIGFuZCBvcy5wYXRoLmlzZmlsZShwKSBhbmQgb3MuYWNjZXNzKHAsIG9zLlhfT0spOgogICAgICAgICAgICByZXR1cm4gcAogICAgcmV0dXJuIE5vbmUKCgpkZWYgcm9jbV92ZXJzaW9uKCk6CiAgICAiIiJUaGUgaW5zdGFsbGVkIFJPQ20gcmVsZWFzZSAoL29wdC9yb2NtLy5pbmZvL3ZlcnNpb24sIGUuZy4gNi4yLjEtMTEyIC0+IDYuMi4xKS4iIiIKICAgIHRyeToKICAgICAgICB3aXRoIG9wZW4ob3MucGF0aC5qb2luKFJPQ01fRElSLCAiLmluZm8iLCAidmVyc2lvbiIpKSBhcyBmOgogICAgICAgICAgICByZXR1cm4gZi5yZWFkKCkuc3RyaXAoKS5zcGxpdCgiLSIpWzBdCiAgICBleGNlcHQgT1NFcnJvcjoKICAgICAgICByZXR1cm4gIiIKCgpkZWYgbG9hZF9qc29uKG91dCk6CiAgICAiIiJUaGUgSlNPTiBkb2N1bWVudCBpbiBhIHRvb2wncyBvdXRwdXQsIG9yIE5vbmUuIExpbmVzIGJlZm9yZSBpdCBhcmUgc2tpcHBlZCwgYWxzbyB3aGVuCiAgICB0aGV5IGhvbGQgYnJhY2tldHMgdGhlbXNlbHZlcyAoIltXQVJOSU5HXSAuLi4iKTogZXZlcnkgWyBvciB7IGlzIHRyaWVkIGluIHR1cm4uIiIiCiAgICBkZWNvZGVyID0ganNvbi5KU09ORGVjb2RlcigpCiAgICBmb3IgaSwgY2ggaW4gZW51bWVyYXRlKG91dCk6CiAgICAgICAgaWYgY2ggbm90IGluICJbeyI6CiAgICAgICAgICAgIGNvbnRpbnVlCiAgICAgICAgdHJ5OgogICAgICAgICAgICBkb2MgPSBkZWNvZGVyLnJhd19kZWNvZGUob3V0W2k6XSlbMF0KICAgICAgICBleGNlcHQgVmFsdWVFcnJvcjoKICAgICAgICAgICAgY29udGludWUKICAgICAgICBpZiBpc2luc3RhbmNlKGRvYywgKGxpc3QsIGRpY3QpKToKICAgICAgICAgICAgcmV0dXJuIGRvYwogICAgcmV0dXJuIE5vbmUKCgpkZWYgYW1kX2xpc3QoZGF0YSk6CiAgICAiIiJhbWQtc21pJ3MgcGVyLUdQVSBvYmplY3RzOiBhIGxpc3QgKFJPQ20gNi54KSBvciB7ImdwdV9kYXRhIjogWy4uLl19IChsYXRlciByZWxlYXNlcykuIiIiCiAgICBpZiBpc2luc3RhbmNlKGRhdGEsIGRpY3QpOgogICAgICAgIGRhdGEgPSBkYXRhLmdldCgiZ3B1X2RhdGEiKQogICAgaWYgbm90IGlzaW5zdGFuY2UoZGF0YSwgbGlzdCk6CiAgICAgICAgcmV0dXJuIE5vbmUKICAgIHJldHVybiBbZyBmb3IgZyBpbiBkYXRhIGlmIGlzaW5zdGFuY2UoZywgZGljdCkgYW5kIGlzaW5zdGFuY2UoZy5nZXQoImdwdSIpLCBpbnQpXQoKCmRlZiB2YWx1ZSh2KToKICAgICIiIkFuIGFtZC1zbWkvcm9jbS1zbWkgZmllbGQgYXMgYSBudW1iZXI6IHBsYWluIChST0NtIDYuMCksIHsidmFsdWUiOiAuLiwgInVuaXQiOiAuLn0KICAgICg2LjEgYW5kIGxhdGVyKSBvciBhIHN0cmluZzsgTm9uZSBmb3IgIk4vQSIgYW5kIGFueXRoaW5nIGVsc2UuIiIiCiAgICBpZiBpc2luc3RhbmNlKHYsIGRpY3QpOgogICAgICAgIHYgPSB2LmdldCgidmFsdWUiKQogICAgaWYgaXNpbnN0YW5jZSh2LCBib29sKToKICAgICAgICByZXR1cm4gTm9uZQogICAgaWYgaXNpbnN0YW5jZSh2LCAoaW50LCBmbG9hdCkpOgogICAgICAgIHJldHVybiBmbG9hdCh2KQogICAgaWYgaXNpbnN0YW5jZSh2LCBzdHIpIGFuZCB2LnN0cmlwKCk6CiAgICAgICAgcmV0dXJuIG51bSh2LnNwbGl0KClbMF0pCiAgICByZXR1cm4gTm9uZQoKCmRlZiBwaWNrKGQsICpwYXRocyk6CiAgICAiIiJUaGUgZmlyc3Qgb2YgYHBhdGhzYCAoa2V5IHR1cGxlcykgdGhhdCBob2xkcyBhIG51bWJlci4iIiIKICAgIGZvciBwYXRoIGluIHBhdGhzOgogICAgICAgIHYgPSBkCiAgICAgICAgZm9yIGsgaW4gcGF0aDoKICAgICAgICAgICAgdiA9IHYuZ2V0KGspIGlmIGlzaW5zdGFuY2UodiwgZGljdCkgZWxzZSBOb25lCiAgICAgICAgbiA9IHZhbHVlKHYpCiAgICAgICAgaWYgbiBpcyBub3QgTm9uZToKICAgICAgICAgICAgcmV0dXJuIG4KICAgIHJldHVybiBOb25lCgoKZGVmIHRleHQodik6CiAgICByZXR1cm4gdi5zdHJpcCgpIGlmIGlzaW5zdGFuY2Uodiwgc3RyKSBhbmQgdi5zdHJpcCgpICE9ICJOL0EiIGVsc2UgIiIKCgpkZWYgYW1kX3NtaV9yb3dzKGJhc2UsIHRvb2wpOgogICAgIiIiKHJvd3MsIGVycm9yIG1lc3NhZ2UpOiBhbWQtc21pIG1ldHJpYy9zdGF0aWMvbGlzdCAtLWpzb24sIG9uZSByb3cgcGVyIEdQVS4iIiIKICAgIHJjLCBvdXQsIGVyciA9IHJ1bihbdG9vbCwgIm1ldHJpYyIsICItLWpzb24iXSkKICAgIG1ldHJpYyA9IGFtZF9saXN0KGxvYWRfanNvbihvdXQpKQogICAgaWYgbWV0cmljIGlzIE5vbmU6CiAgICAgICAgbXNnID0gKGVyciBvciBvdXQpLnN0cmlwKCkuc3BsaXRsaW5lcygpCiAgICAgICAgcmV0dXJuIFtdLCAobXNnWzBdIGlmIG1zZyBlbHNlICJhbWQtc21pIG1ldHJpYyBleGl0ZWQgJWQiICUgcmMpCiAgICBzdGF0aWMgPSB7Z1siZ3B1Il06IGcgZm9yIGcgaW4gYW1kX2xpc3QobG9hZF9qc29uKHJ1bihbdG9vbCwgInN0YXRpYyIsICItLWpzb24iXSlbMV0pKSBvciBbXX0KICAgIGxpc3RlZCA9IHtnWyJncHUiXTogZyBmb3IgZyBpbiBhbWRfbGlzdChsb2FkX2pzb24ocnVuKFt0b29sLCAibGlzdCIsICItLWpzb24iXSlbMV0pKSBvciBbXX0KICAgIHJvY20gPSByb2NtX3ZlcnNpb24oKQogICAgcm93cyA9IFtdCiAgICBmb3IgbSBpbiBzb3J0ZWQobWV0cmljLCBrZXk9bGFtYmRhIGc6IGdbImdwdSJdKToKICAgICAgICBzID0gc3RhdGljLmdldChtWyJncHUiXSwge30pCiAgICAgICAgZHJpdmVyID0gcy5nZXQoImRyaXZlciIpIGlmIGlzaW5zdGFuY2Uocy5nZXQoImRyaXZlciIpLCBkaWN0KSBlbHNlIHt9CiAgICAgICAgYXNpYyA9IHMuZ2V0KCJhc2ljIikgaWYgaXNpbnN0YW5jZShzLmdldCgiYXNpYyIpLCBkaWN0KSBlbHNlIHt9CiAgICAgICAgZWNjID0gcGljayhtLCAoImVjYyIsICJ0b3RhbF91bmNvcnJlY3RhYmxlX2NvdW50IiksICgiZWNjIiwgInRvdGFsX3VuY29ycmVjdGFibGUiKSkKICAgICAgICByb3dzLmFwcGVuZCgKICAgICAgICAgICAgZGljdCgKICAgICAgICAgICAgICAgIGJhc2UsCiAgICAgICAgICAgICAgICBHcHVJbmRleD1tWyJncHUiXSwKICAgICAgICAgICAgICAgIEdwdVV1aWQ9dGV4dChsaXN0ZWQuZ2V0KG1bImdwdSJdLCB7fSkuZ2V0KCJ1dWlkIikpLAogICAgICAgICAgICAgICAgR3B1TmFtZT10ZXh0KGFzaWMuZ2V0KCJtYXJrZXRfbmFtZSIpKSwKICAgICAgICAgICAgICAgIFV0aWxpemF0aW9uUGVyY2VudD1waWNrKG0sICgidXNhZ2UiLCAiZ2Z4X2FjdGl2aXR5IiksICgidXNhZ2UiLCAiZ2Z4X3VzYWdlIikpLAogICAgICAgICAgICAgICAgTWVtb3J5VXNlZE1pQj1waWNrKG0sICgibWVtX3VzYWdlIiwgInVzZWRfdnJhbSIpKSwKICAgICAgICAgICAgICAgIE1lbW9yeVRvdGFsTWlCPXBpY2sobSwgKCJtZW1fdXNhZ2UiLCAidG90YWxfdnJhbSIpKSwKICAgICAgICAgICAgICAgIFRlbXBlcmF0dXJlQz1waWNrKG0sICgidGVtcGVyYXR1cmUiLCAiaG90c3BvdCIpLCAoInRlbXBlcmF0dXJlIiwgImVkZ2UiKSksCiAgICAgICAgICAgICAgICBQb3dlckRyYXdXPXBpY2soCiAgICAgICAgICAgICAgICAgICAgbSwKICAgICAgICAgICAgICAgICAgICAoInBvd2VyIiwgInNvY2tldF9wb3dlciIpLAogICAgICAgICAgICAgICAgICAgICgicG93ZXIiLCAiY3VycmVudF9zb2NrZXRfcG93ZXIiKSwKICAgICAgICAgICAgICAgICAgICAoInBvd2VyIiwgImF2ZXJhZ2Vfc29ja2V0X3Bvd2VyIiksCiAgICAgICAgICAgICAgICAgICAgKCJwb3dlciIsICJjdXJyZW50X3Bvd2VyIiksCiAgICAgICAgICAgICAgICApLAogICAgICAgICAgICAgICAgRWNjVW5jb3JyZWN0ZWQ9Tm9uZSBpZiBlY2MgaXMgTm9uZSBlbHNlIGludChlY2MpLAogICAgICAgICAgICAgICAgRHJpdmVyVmVyc2lvbj10ZXh0KGRyaXZlci5nZXQoInZlcnNpb24iKSkgb3IgdGV4dChkcml2ZXIuZ2V0KCJkcml2ZXJfdmVyc2lvbiIpKSwKICAgICAgICAgICAgICAgIEN1ZGFWZXJzaW9uPXJvY20sCiAgICAgICAgICAgICkKICAgICAgICApCiAgICByZXR1cm4gcm93cywgIiIKCgpkZWYgcm9jbV9zbWlfcm93cyhiYXNlLCB0b29sKToKICAgICIiIihyb3dzLCBlcnJvciBtZXNzYWdlKTogcm9jbS1zbWkgLS1qc29uICh7ImNhcmQwIjogey4uLn0sICJzeXN0ZW0iOiB7Li4ufX0pLiIiIgogICAgcmMsIG91dCwgZXJyID0gcnVuKFt0b29sXSArIFJPQ01fU01JX0FSR1MpCiAgICBkYXRhID0gbG9hZF9qc29uKG91dCkKICAgIGNhcmRzID0gW10KICAgIGlmIGlzaW5zdGFuY2UoZGF0YSwgZGljdCk6CiAgICAgICAgY2FyZHMgPSBzb3J0ZWQoCiAgICAgICAgICAgIChpbnQoa1s0Ol0pLCB2KSBmb3IgaywgdiBpbiBkYXRhLml0ZW1zKCkKICAgICAgICAgICAgaWYgay5zdGFydHN3aXRoKCJjYXJkIikgYW5kIGtbNDpdLmlzZGlnaXQoKSBhbmQgaXNpbnN0YW5jZSh2LCBkaWN0KQogICAgICAgICkKICAgIGlmIG5vdCBpc2luc3RhbmNlKGRhdGEsIGRpY3QpOgogICAgICAgIG1zZyA9IChlcnIgb3Igb3V0KS5zdHJpcCgpLnNwbGl0bGluZXMoKQogICAgICAgIHJldHVybiBbXSwgKG1zZ1swXSBpZiBtc2cgZWxzZSAicm9jbS1zbWkgZXhpdGVkICVkIiAlIHJjKQogICAgc3lzdGVtID0gZGF0YS5nZXQoInN5c3RlbSIpIGlmIGlzaW5zdGFuY2UoZGF0YS5nZXQoInN5c3RlbSIpLCBkaWN0KSBlbHNlIHt9CiAgICByb2NtID0gcm9jbV92ZXJzaW9uKCkKICAgIHJvd3MgPSBbXQogICAgZm9yIGluZGV4LCBjIGluIGNhcmRzOgogICAgICAgIHRvdGFsID0gcGljayhjLCAoIlZSQU0gVG90YWwgTWVtb3J5IChCKSIsKSkKICAgICAgICB1c2VkID0gcGljayhjLCAoIlZSQU0gVG90YWwgVXNlZCBNZW1vcnkgKEIpIiwpKQogICAgICAgIHJvd3MuYXBwZW5kKAogICAgICAgICAgICBkaWN0KAogICAgICAgICAgICAgICAgYmFzZSwKICAgICAgICAgICAgICAgIEdwdUluZGV4PWluZGV4LAogICAgICAgICAgICAgICAgR3B1VXVpZD10ZXh0KGMuZ2V0KCJVbmlxdWUgSUQiKSksCiAgICAgICAgICAgICAgICBHcHVOYW1lPXRleHQoYy5nZXQoIkNhcmQgc2VyaWVzIikgb3IgYy5nZXQoIkNhcmQgU2VyaWVzIikpLAogICAgICAgICAgICAgICAgVXRpbGl6YXRpb25QZXJjZW50PXBpY2soYywgKCJHUFUgdXNlICglKSIsKSksCiAgICAgICAgICAgICAgICBNZW1vcnlVc2VkTWlCPU5vbmUgaWYgdXNlZCBpcyBOb25lIGVsc2UgdXNlZCAvIDEwNDg1NzYsCiAgICAgICAgICAgICAgICBNZW1vcnlUb3RhbE1pQj1Ob25lIGlmIHRvdGFsIGlzIE5vbmUgZWxzZSB0b3RhbCAvIDEwNDg1NzYsCiAgICAgICAgICAgICAgICBUZW1wZXJhdHVyZUM9cGljaygKICAgICAgICAgICAgICAgICAgICBjLCAoIlRlbXBlcmF0dXJlIChTZW5zb3IganVuY3Rpb24pIChDKSIsKSwgKCJUZW1wZXJhdHVyZSAoU2Vuc29yIGVkZ2UpIChDKSIsKQogICAgICAgICAgICAgICAgKSwKICAgICAgICAgICAgICAgIFBvd2VyRHJhd1c9cGljaygKICAgICAgICAgICAgICAgICAgICBjLAogICAgICAgICAgICAgICAgICAgICgiQ3VycmVudCBTb2NrZXQgR3JhcGhpY3MgUGFja2FnZSBQb3dlciAoVykiLCksCiAgICAgICAgICAgICAgICAgICAgKCJBdmVyYWdlIEdyYXBoaWNzIFBhY2thZ2UgUG93ZXIgKFcpIiwpLAogICAgICAgICAgICAgICAgKSwKICAgICAgICAgICAgICAgIEVjY1VuY29ycmVjdGVkPU5vbmUsCiAgICAgICAgICAgICAgICBEcml2ZXJWZXJzaW9uPXRleHQoc3lzdGVtLmdldCgiRHJpdmVyIHZlcnNpb24iKSksCiAgICAgICAgICAgICAgICBDdWRhVmVyc2lvbj1yb2NtLAogICAgICAgICAgICApCiAgICAgICAgKQogICAgcmV0dXJuIHJvd3MsICIiCgoKZGVmIGFtZF9yb3dzKGJhc2UsIGV4cGVjdGVkKToKICAgICIiIk9uZSByb3cgcGVyIEFNRCBHUFUsIG9yIG9uZSBoZWFsdGggcm93LiBYaWQgaXMgTlZJRElBJ3M6IFhpZEVycm9ycy9YaWRDb2RlcyBzdGF5IGVtcHR5LiIiIgogICAgb25fYnVzID0gcGNpX2dwdXMoQU1EX1BDSV9WRU5ET1IpCiAgICBlbXB0eSA9IGRpY3QoYmFzZSwgWGlkRXJyb3JzPU5vbmUsIFhpZENvZGVzPSIiKQogICAgdG9vbCA9IGZpbmRfdG9vbCgiYW1kLXNtaSIpCiAgICBuYW1lID0gImFtZC1zbWkiCiAgICBpZiB0b29sIGlzIE5vbmU6CiAgICAgICAgdG9vbCA9IGZpbmRfdG9vbCgicm9jbS1zbWkiKQogICAgICAgIG5hbWUgPSAicm9jbS1zbWkiCiAgICBpZiB0b29sIGlzIE5vbmU6CiAgICAgICAgaWYgb25fYnVzIDwgZXhwZWN0ZWQ6CiAgICAgICAgICAgIHJldHVybiBbCiAgICAgICAgICAgICAgICBkaWN0KAogICAgICAgICAgICAgICAgICAgIGVtcHR5LAogICAgICAgICAgICAgICAgICAgIEdwdUluZGV4PU5vbmUsCiAgICAgICAgICAgICAgICAgICAgU3RhdHVzPSJncHUtbWlzc2luZyIsCiAgICAgICAgICAgICAgICAgICAgSGVhbHRoeT1GYWxzZSwKICAgICAgICAgICAgICAgICAgICBNZXNzYWdlPSIlZCBvZiAlZCBBTUQgR1BVcyBvbiB0aGUgUENJIGJ1cyAobm8gYW1kLXNtaSBvciByb2NtLXNtaSB0byByZWFkIHRoZW0pIgogICAgICAgICAgICAgICAgICAgICUgKG9uX2J1cywgZXhwZWN0ZWQpLAogICAgICAgICAgICAgICAgKQogICAgICAgICAgICBdCiAgICAgICAgIyBub3RoaW5nIGNhbiByZWFkIHRoZSBHUFVzOiByZXBvcnRlZCAoZmF1bHRzIGFsZXJ0KSwgbm90IHJlcGFpcmVkIChhIG5ldyBWTSBmcm9tIHRoZQogICAgICAgICMgc2FtZSBpbWFnZSB3b3VsZCBoYXZlIG5vIHRvb2wgZWl0aGVyKQogICAgICAgIHJldHVybiBbCiAgICAgICAgICAgIGRpY3QoCiAgICAgICAgICAgICAgICBlbXB0eSwKICAgICAgICAgICAgICAgIEdwdUluZGV4PU5vbmUsCiAgICAgICAgICAgICAgICBTdGF0dXM9InRvb2wtbWlzc2luZyIsCiAgICAgICAgICAgICAgICBIZWFsdGh5PVRydWUsCiAgICAgICAgICAgICAgICBNZXNzYWdlPSJubyBhbWQtc21pIG9yIHJvY20tc21pIG9uIFBBVEggb3IgaW4gJXMvYmluOiB1c2UgYW4gaW1hZ2Ugd2l0aCBST0NtICglZCBvZiAlZCBBTUQgR1BVcyBvbiB0aGUgUENJIGJ1cykiCiAgICAgICAgICAgICAgICAlIChST0NNX0RJUiwgb25fYnVzLCBleHBlY3RlZCksCiAgICAgICAgICAgICkKICAgICAgICBdCiAgICBpZiBuYW1lID09ICJhbWQtc21pIjoKICAgICAgICBncHVzLCBlcnJvciA9IGFtZF9zbWlfcm93cyhlbXB0eSwgdG9vbCkKICAgICAgICAjIGFtZC1zbWkgYnJva2VuIGluIHRoZSBpbWFnZSAoYSBQeXRob24gZGVwZW5kZW5jeSwgYSBsaWJyYXJ5IHRoYXQgZG9lcyBub3QgbWF0Y2ggdGhlCiAgICAgICAgIyBkcml2ZXIpIHdoaWxlIHJvY20tc21pIHN0aWxsIHJlYWRzIHRoZSBHUFVzOiBub3QgYSBHUFUgZmF1bHQsIG5vIHJlcGFpcgogICAgICAgIGZhbGxiYWNrID0gZmluZF90b29sKCJyb2NtLXNtaSIpIGlmIG5vdCBncHVzIGVsc2UgTm9uZQogICAgICAgIGlmIGZhbGxiYWNrIGlzIG5vdCBOb25lOgogICAgICAgICAgICBhbHQsIGFsdF9lcnJvciA9IHJvY21fc21pX3Jvd3MoZW1wdHksIGZhbGxiYWNrKQogICAgICAgICAgICBpZiBhbHQ6CiAgICAgICAgICAgICAgICBncHVzLCBuYW1lID0gYWx0LCAicm9jbS1zbWkiCiAgICAgICAgICAgIGVsc2U6CiAgICAgICAgICAgICAgICBlcnJvciA9ICIlczsgcm9jbS1zbWk6ICVzIiAlIChlcnJvciBvciAiYW1kLXNtaSBzaG93cyBubyBHUFUiLCBhbHRfZXJyb3Igb3IgIm5vIEdQVSIpCiAgICBlbHNlOgogICAgICAgIGdwdXMsIGVycm9yID0gcm9jbV9zbWlfcm93cyhlbXB0eSwgdG9vbCkKICAgIGlmIG5vdCBncHVzOgogICAgICAgIHJldHVybiBbCiAgICAgICAgICAgIGRpY3QoCiAgICAgICAgICAgICAgICBlbXB0eSwKICAgICAgICAgICAgICAgIEdwdUluZGV4PU5vbmUsCiAgICAgICAgICAgICAgICBTdGF0dXM9bmFtZSArICItZmFpbGVkIiBpZiBlcnJvciBlbHNlICJuby1ncHUiLAogICAgICAgICAgICAgICAgSGVhbHRoeT1GYWxzZSwKICAgICAgICAgICAgICAgIE1lc3NhZ2U9KGVycm9yIG9yICIlcyBzaG93cyBubyBHUFUiICUgbmFtZSlbOjUwMF0sCiAgICAgICAgICAgICkKICAgICAgICBdCiAgICBtaXNzaW5nID0gIiIKICAgIGlmIGxlbihncHVzKSA8IGV4cGVjdGVkOgogICAgICAgIG1pc3NpbmcgPSAiJXMgc2hvd3MgJWQgb2YgJWQgR1BVcyIgJSAobmFtZSwgbGVuKGdwdXMpLCBleHBlY3RlZCkKICAgIGVsaWYgb25fYnVzIDwgZXhwZWN0ZWQ6CiAgICAgICAgbWlzc2luZyA9ICIlZCBvZiAlZCBBTUQgR1BVcyBvbiB0aGUgUENJIGJ1cyIgJSAob25fYnVzLCBleHBlY3RlZCkKICAgIGZvciByIGluIGdwdXM6CiAgICAgICAgci51cGRhdGUoCiAgICAgICAgICAgIFN0YXR1cz0iZ3B1LW1pc3NpbmciIGlmIG1pc3NpbmcgZWxzZSAib2siLAogICAgICAgICAgICBIZWFsdGh5PW5vdCBtaXNzaW5nLAogICAgICAgICAgICBNZXNzYWdlPW1pc3NpbmcsCiAgICAgICAgKQogICAgcmV0dXJuIGdwdXMKCgpkZWYgbnZpZGlhX3Jvd3MoYmFzZSwgZXhwZWN0ZWQsIHNpbmNlX2ZpbGUpOgogICAgIiIiT25lIHJvdyBwZXIgR1BVIGZyb20gbnZpZGlhLXNtaSwgb3Igb25lIGhlYWx0aCByb3cuIiIiCiAgICB4aWRzLCB4aWRfY29kZXMgPSB4aWRfZXJyb3JzKHNpbmNlX2ZpbGUpCiAgICByYywgb3V0LCBlcnIgPSBydW4oWyJudmlkaWEtc21pIiwgIi0tcXVlcnktZ3B1PSIgKyBRVUVSWSwgIi0tZm9ybWF0PWNzdixub2hlYWRlcixub3VuaXRzIl0pCiAgICByb3dzID0gW10KICAgIGlmIHJjID09IDA6CiAgICAgICAgY3VkYSA9IGN1ZGFfdmVyc2lvbigpCiAgICAgICAgZm9yIGxpbmUgaW4gb3V0LnNwbGl0bGluZXMoKToKICAgICAgICAgICAgZiA9IFtjLnN0cmlwKCkgZm9yIGMgaW4gbGluZS5zcGxpdCgiLCIpXQogICAgICAgICAgICBpZiBsZW4oZikgIT0gMTE6CiAgICAgICAgICAgICAgICBjb250aW51ZQogICAgICAgICAgICByb3dzLmFwcGVuZCgKICAgICAgICAgICAgICAgIGRpY3QoCiAgICAgICAgICAgICAgICAgICAgYmFzZSwKICAgICAgICAgICAgICAgICAgICBHcHVJbmRleD1pbnRlZ2VyKGZbMV0pLAogICAgICAgICAgICAgICAgICAgIEdwdVV1aWQ9ZlsyXSwKICAgICAgICAgICAgICAgICAgICBHcHVOYW1lPWZbM10sCiAgICAgICAgICAgICAgICAgICAgVXRpbGl6YXRpb25QZXJjZW50PW51bShmWzRdKSwKICAgICAgICAgICAgICAgICAgICBNZW1vcnlVc2VkTWlCPW51bShmWzVdKSwKICAgICAgICAgICAgICAgICAgICBNZW1vcnlUb3RhbE1pQj1udW0oZls2XSksCiAgICAgICAgICAgICAgICAgICAgVGVtcGVyYXR1cmVDPW51bShmWzddKSwKICAgICAgICAgICAgICAgICAgICBQb3dlckRyYXdXPW51bShmWzhdKSwKICAgICAgICAgICAgICAgICAgICBFY2NVbmNvcnJlY3RlZD1pbnRlZ2VyKGZbOV0pLAogICAgICAgICAgICAgICAgICAgIFhpZEVycm9ycz14aWRzLAogICAgICAgICAgICAgICAgICAgIFhpZENvZGVzPXhpZF9jb2RlcywKICAgICAgICAgICAgICAgICAgICBEcml2ZXJWZXJzaW9uPWZbMTBdLAogICAgICAgICAgICAgICAgICAgIEN1ZGFWZXJzaW9uPWN1ZGEsCiAgICAgICAgICAgICAgICAgICAgU3RhdHVzPSJvayIsCiAgICAgICAgICAgICAgICAgICAgSGVhbHRoeT1UcnVlLAogICAgICAgICAgICAgICAgICAgIE1lc3NhZ2U9IiIsCiAgICAgICAgICAgICAgICApCiAgICAgICAgICAgICkKICAgIGlmIHJjICE9IDAgb3Igbm90IHJvd3M6CiAgICAgICAgbXNnID0gKGVyciBvciBvdXQpLnN0cmlwKCkuc3BsaXRsaW5lcygpCiAgICAgICAgcm93cyA9IFsKICAgICAgICAgICAgZGljdCgKICAgICAgICAgICAgICAgIGJhc2UsCiAgICAgICAgICAgICAgICBHcHVJbmRleD1Ob25lLAogICAgICAgICAgICAgICAgU3RhdHVzPSJudmlkaWEtc21pLWZhaWxlZCIgaWYgcmMgIT0gMCBlbHNlICJuby1ncHUiLAogICAgICAgICAgICAgICAgSGVhbHRoeT1GYWxzZSwKICAgICAgICAgICAgICAgIFhpZEVycm9ycz14aWRzLAogICAgICAgICAgICAgICAgWGlkQ29kZXM9eGlkX2NvZGVzLAogICAgICAgICAgICAgICAgTWVzc2FnZT0obXNnWzBdIGlmIG1zZyBlbHNlICJudmlkaWEtc21pIGV4aXRlZCAlZCIgJSByYylbOjUwMF0sCiAgICAgICAgICAgICkKICAgICAgICBdCiAgICBlbGlmIGxlbihyb3dzKSA8IGV4cGVjdGVkOgogICAgICAgIGZvciByIGluIHJvd3M6CiAgICAgICAgICAgIHJbIlN0YXR1cyJdID0gImdwdS1taXNzaW5nIgogICAgICAgICAgICByWyJIZWFsdGh5Il0gPSBGYWxzZQogICAgICAgICAgICByWyJNZXNzYWdlIl0gPSAibnZpZGlhLXNtaSBzaG93cyAlZCBvZiAlZCBHUFVzIiAlIChsZW4ocm93cyksIGV4cGVjdGVkKQogICAgcmV0dXJuIHJvd3MKCgpkZWYgcnVubmluZ19qb2JzKCk6CiAgICAiIiJUaGUgam9icyB0aGUgd29ya2xvYWQgc2F5cyBpdCBydW5zIChKT0JTX0ZJTEUsIG9uZSBpbnRlZ2VyKSwgb3IgTm9uZSB3aXRob3V0IG9uZS4iIiIKICAgIHRyeToKICAgICAgICB3aXRoIG9wZW4oSk9CU19GSUxFKSBhcyBmOgogICAgICAgICAgICBuID0gaW50KGYucmVhZCgpLnN0cmlwKCkpCiAgICBleGNlcHQgKE9TRXJyb3IsIFZhbHVlRXJyb3IpOgogICAgICAgIHJldHVybiBOb25lCiAgICByZXR1cm4gbiBpZiBuID49IDAgZWxzZSBOb25lCgoKZGVmIGNvbGxlY3QoZXhwZWN0ZWQsIHZlbmRvcj0ibnZpZGlhIik6CiAgICB0ID0gbm93KCkKICAgIHN0YW1wID0gdC5zdHJmdGltZSgiJVktJW0tJWRUJUg6JU06JVNaIikKICAgIG9zLm1ha2VkaXJzKExPR19ESVIsIGV4aXN0X29rPVRydWUpCiAgICBvcy5tYWtlZGlycyhTVEFURV9ESVIsIGV4aXN0X29rPVRydWUpCiAgICBtZXRhID0gaW1kcygpCiAgICBiYXNlID0gewogICAgICAgICJUaW1lR2VuZXJhdGVkIjogc3RhbXAsCiAgICAgICAgIkNvbXB1dGVyIjogc29ja2V0LmdldGhvc3RuYW1lKCksCiAgICAgICAgIlZtSWQiOiBtZXRhLmdldCgidm1JZCIsICIiKSwKICAgICAgICAiUHJpb3JpdHkiOiBtZXRhLmdldCgicHJpb3JpdHkiLCAiIikgb3IgIlJlZ3VsYXIiLAogICAgICAgICJFeHBlY3RlZEdwdXMiOiBleHBlY3RlZCwKICAgICAgICAiUnVubmluZ0pvYnMiOiBydW5uaW5nX2pvYnMoKSwKICAgIH0KICAgIHNpbmNlX2ZpbGUgPSBvcy5wYXRoLmpvaW4oU1RBVEVfRElSLCAieGlkLXNpbmNlIikKICAgIGlmIHZlbmRvciA9PSAiYW1kIjoKICAgICAgICByb3dzID0gYW1kX3Jvd3MoYmFzZSwgZXhwZWN0ZWQpCiAgICBlbHNlOgogICAgICAgIHJvd3MgPSBudmlkaWFfcm93cyhiYXNlLCBleHBlY3RlZCwgc2luY2VfZmlsZSkKICAgIHBhdGggPSBvcy5wYXRoLmpvaW4oTE9HX0RJUiwgImdwdS0lcy5qc29uIiAlIHQuc3RyZnRpbWUoIiVZJW0lZCIpKQogICAgd2l0aCBvcGVuKHBhdGgsICJhIikgYXMgZjoKICAgICAgICBmb3IgciBpbiByb3dzOgogICAgICAgICAgICBmLndyaXRlKGpzb24uZHVtcHMociwgc29ydF9rZXlzPVRydWUsIHNlcGFyYXRvcnM9KCIsIiwgIjoiKSkgKyAiXG4iKQogICAgaGVhbHRoeSA9IGFsbChyWyJIZWFsdGh5Il0gZm9yIHIgaW4gcm93cykKICAgIHN0YXR1cyA9IHsidGltZSI6IHN0YW1wLCAiaGVhbHRoeSI6IGhlYWx0aHksICJzdGF0dXMiOiByb3dzWzBdWyJTdGF0dXMiXX0KICAgIHRtcCA9IG9zLnBhdGguam9pbihTVEFURV9ESVIsICJoZWFsdGguanNvbi50bXAiKQogICAgd2l0aCBvcGVuKHRtcCwgInciKSBhcyBmOgogICAgICAgIGpzb24uZHVtcChzdGF0dXMsIGYpCiAgICBvcy5yZXBsYWNlKHRtcCwgb3MucGF0aC5qb2luKFNUQVRFX0RJUiwgImhlYWx0aC5qc29uIikpCiAgICBpZiB2ZW5kb3IgIT0gImFtZCI6CiAgICAgICAgd2l0aCBvcGVuKHNpbmNlX2ZpbGUsICJ3IikgYXMgZjoKICAgICAgICAgICAgZi53cml0ZSh0LnN0cmZ0aW1lKCIlWS0lbS0lZCAlSDolTTolUyBVVEMiKSkKICAgICMgdGhlIGFnZW50IHJlYWRzIG5ldyBsaW5lczsgZmlsZXMgb2xkZXIgdGhhbiBLRUVQX0RBWVMgYXJlIGdvbmUKICAgIGN1dG9mZiA9ICh0IC0gZGF0ZXRpbWUudGltZWRlbHRhKGRheXM9S0VFUF9EQVlTKSkuc3RyZnRpbWUoIiVZJW0lZCIpCiAgICBmb3Igb2xkIGluIGdsb2IuZ2xvYihvcy5wYXRoLmpvaW4oTE9HX0RJUiwgImdwdS0qLmpzb24iKSk6CiAgICAgICAgZGF5ID0gb3MucGF0aC5iYXNlbmFtZShvbGQpWzQ6MTJdCiAgICAgICAgaWYgZGF5LmlzZGlnaXQoKSBhbmQgZGF5IDwgY3V0b2ZmOgogICAgICAgICAgICBvcy5yZW1vdmUob2xkKQogICAgcmV0dXJuIDAgaWYgaGVhbHRoeSBlbHNlIDEKCgpkZWYgaGVhbHRoKCk6CiAgICAiIiIoSFRUUCBzdGF0dXMsIHJpY2ggaGVhbHRoIHN0YXRlKSBmcm9tIHRoZSBsYXN0IHNhbXBsZTsgc3RhbGUgYWZ0ZXIgNSBtaW51dGVzLiIiIgogICAgdHJ5OgogICAgICAgIHdpdGggb3Blbihvcy5wYXRoLmpvaW4oU1RBVEVfRElSLCAiaGVhbHRoLmpzb24iKSkgYXMgZjoKICAgICAgICAgICAgcyA9IGpzb24ubG9hZChmKQogICAgICAgIGF0ID0gZGF0ZXRpbWUuZGF0ZXRpbWUuc3RycHRpbWUoc1sidGltZSJdLCAiJVktJW0tJWRUJUg6JU06JVNaIikucmVwbGFjZSgKICAgICAgICAgICAgdHppbmZvPWRhdGV0aW1lLnRpbWV6b25lLnV0YwogICAgICAgICkKICAgICAgICBmcmVzaCA9IChub3coKSAtIGF0KS50b3RhbF9zZWNvbmRzKCkgPCAzMDAKICAgICAgICBpZiBzLmdldCgiaGVhbHRoeSIpIGFuZCBmcmVzaDoKICAgICAgICAgICAgcmV0dXJuIDIwMCwgIkhlYWx0aHkiCiAgICBleGNlcHQgKE9TRXJyb3IsIFZhbHVlRXJyb3IsIEtleUVycm9yKToKICAgICAgICBwYXNzCiAgICByZXR1cm4gNTAzLCAiVW5oZWFsdGh5IgoKCmNsYXNzIEhhbmRsZXIoaHR0cC5zZXJ2ZXIuQmFzZUhUVFBSZXF1ZXN0SGFuZGxlcik6CiAgICBkZWYgZG9fR0VUKHNlbGYpOgogICAgICAgIGNvZGUsIHN0YXRlID0gaGVhbHRoKCkKICAgICAgICBib2R5ID0ganNvbi5kdW1wcyh7IkFwcGxpY2F0aW9uSGVhbHRoU3RhdGUiOiBzdGF0ZX0pLmVuY29kZSgpCiAgICAgICAgc2VsZi5zZW5kX3Jlc3BvbnNlKGNvZGUpCiAgICAgICAgc2VsZi5zZW5kX2hlYWRlcigiQ29udGVudC1UeXBlIiwgImFwcGxpY2F0aW9uL2pzb24iKQogICAgICAgIHNlbGYuc2VuZF9oZWFkZXIoIkNvbnRlbnQtTGVuZ3RoIiwgc3RyKGxlbihib2R5KSkpCiAgICAgICAgc2VsZi5lbmRfaGVhZGVycygpCiAgICAgICAgc2VsZi53ZmlsZS53cml0ZShib2R5KQoKICAgIGRlZiBsb2dfbWVzc2FnZShzZWxmLCAqYXJncyk6CiAgICAgICAgcGFzcwoKCmRlZiBtYWluKGFyZ3YpOgogICAgaWYgMiA8PSBsZW4oYXJndikgPD0gNCBhbmQgYXJndlsxXSA9PSAiY29sbGVjdCI6CiAgICAgICAgZXhwZWN0ZWQgPSBpbnQoYXJndlsyXSkgaWYgbGVuKGFyZ3YpID4gMiBlbHNlIDEKICAgICAgICB2ZW5kb3IgPSBhcmd2WzNdIGlmIGxlbihhcmd2KSA+IDMgZWxzZSAibnZpZGlhIgogICAgICAgIGlmIHZlbmRvciBpbiBWRU5ET1JTOgogICAgICAgICAgICByZXR1cm4gY29sbGVjdChleHBlY3RlZCwgdmVuZG9yKQogICAgaWYgbGVuKGFyZ3YpID09IDMgYW5kIGFyZ3ZbMV0gPT0gInNlcnZlIjoKICAgICAgICBzZXJ2ZXIgPSBodHRwLnNlcnZlci5IVFRQU2VydmVyKCgiMTI3LjAuMC4xIiwgaW50KGFyZ3ZbMl0pKSwgSGFuZGxlcikKICAgICAgICBzZXJ2ZXIuc2VydmVfZm9yZXZlcigpCiAgICAgICAgcmV0dXJuIDAKICAgIGlmIGxlbihhcmd2KSA9PSAyIGFuZCBhcmd2WzFdID09ICJoZWFsdGgiOgogICAgICAgIGNvZGUsIHN0YXRlID0gaGVhbHRoKCkKICAgICAgICBwcmludChzdGF0ZSkKICAgICAgICByZXR1cm4gMCBpZiBjb2RlID09IDIwMCBlbHNlIDEKICAgIHN5cy5zdGRlcnIud3JpdGUoInVzYWdlOiBncHVmb3JtLWdwdSBjb2xsZWN0IEVYUEVDVEVEX0dQVVMgW252aWRpYXxhbWRdIHwgc2VydmUgUE9SVCB8IGhlYWx0aFxuIikKICAgIHJldHVybiAyCgoKaWYgX19uYW1lX18gPT0gIl9fbWFpbl9fIjoKICAgIHN5cy5leGl0KG1haW4oc3lzLmFyZ3YpKQpHUFVGT1JNX0VPRgpjaG1vZCAwNzU1IC91c3IvbG9jYWwvbGliL2dwdWZvcm0vZ3B1Zm9ybS1ncHUKY2F0ID4gL2V0Yy9zeXN0ZW1kL3N5c3RlbS9ncHVmb3JtLWdwdS1jb2xsZWN0LnNlcnZpY2UgPDwnR1BVRk9STV9FT0YnCltVbml0XQpEZXNjcmlwdGlvbj1ncHVmb3JtIEdQVSBzYW1wbGUgKG52aWRpYS1zbWkgdG8gL3Zhci9sb2cvZ3B1Zm9ybS9ncHUtKi5qc29uKQoKW1NlcnZpY2VdClR5cGU9b25lc2hvdApFeGVjU3RhcnQ9L3Vzci9sb2NhbC9saWIvZ3B1Zm9ybS9ncHVmb3JtLWdwdSBjb2xsZWN0IDEgbnZpZGlhClN1Y2Nlc3NFeGl0U3RhdHVzPTEKR1BVRk9STV9FT0YKY2F0ID4gL2V0Yy9zeXN0ZW1kL3N5c3RlbS9ncHVmb3JtLWdwdS1jb2xsZWN0LnRpbWVyIDw8J0dQVUZPUk1fRU9GJwpbVW5pdF0KRGVzY3JpcHRpb249Z3B1Zm9ybSBHUFUgc2FtcGxlIGV2ZXJ5IG1pbnV0ZQoKW1RpbWVyXQpPbkNhbGVuZGFyPSotKi0qICo6KjowMApBY2N1cmFjeVNlYz0xcwoKW0luc3RhbGxdCldhbnRlZEJ5PXRpbWVycy50YXJnZXQKR1BVRk9STV9FT0YKY2F0ID4gL2V0Yy9zeXN0ZW1kL3N5c3RlbS9ncHVmb3JtLWdwdS1oZWFsdGguc2VydmljZSA8PCdHUFVGT1JNX0VPRicKW1VuaXRdCkRlc2NyaXB0aW9uPWdwdWZvcm0gR1BVIGhlYWx0aCBlbmRwb2ludCAoMTI3LjAuMC4xOjg3MTEpCkFmdGVyPW5ldHdvcmsudGFyZ2V0CgpbU2VydmljZV0KRXhlY1N0YXJ0PS91c3IvbG9jYWwvbGliL2dwdWZvcm0vZ3B1Zm9ybS1ncHUgc2VydmUgODcxMQpSZXN0YXJ0PWFsd2F5cwpSZXN0YXJ0U2VjPTUKRHluYW1pY1VzZXI9eWVzClJlYWRPbmx5UGF0aHM9LwoKW0luc3RhbGxdCldhbnRlZEJ5PW11bHRpLXVzZXIudGFyZ2V0CkdQVUZPUk1fRU9GCnN5c3RlbWN0bCBkYWVtb24tcmVsb2FkCnN5c3RlbWN0bCBlbmFibGUgLS1ub3cgZ3B1Zm9ybS1ncHUtY29sbGVjdC50aW1lciBncHVmb3JtLWdwdS1oZWFsdGguc2VydmljZQo='

// ---------------------------------------------------------------- network
// One VNet, a workload subnet and a private endpoint subnet. Subnets have no default outbound
// access; the NAT gateway gives the VMs egress (the GPU driver extension downloads the driver).

resource nsgWorkload 'Microsoft.Network/networkSecurityGroups@2025-05-01' = {
  name: 'nsg-variant-shared-workload'
  location: location
  tags: tags
  properties: {
    // Only the spec's inbound allow rules; Azure's default rules deny all other inbound traffic.
    securityRules: [
    ]
  }
}

resource nsgPrivateEndpoints 'Microsoft.Network/networkSecurityGroups@2025-05-01' = {
  name: 'nsg-variant-shared-private-endpoints'
  location: location
  tags: tags
  properties: {
    securityRules: []
  }
}

// Regional pool (no zones): a Standard NAT gateway without a zone, like the pool.
resource natPublicIp 'Microsoft.Network/publicIPAddresses@2025-05-01' = {
  name: 'pip-variant-shared-nat'
  location: location
  tags: tags
  sku: {
    name: 'Standard'
    tier: 'Regional'
  }
  properties: {
    publicIPAllocationMethod: 'Static'
    publicIPAddressVersion: 'IPv4'
  }
}

resource natGateway 'Microsoft.Network/natGateways@2025-05-01' = {
  name: 'ng-variant-shared'
  location: location
  tags: tags
  sku: {
    name: 'Standard'
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
  name: 'vnet-variant-shared'
  location: location
  tags: tags
  properties: {
    addressSpace: {
      addressPrefixes: [
        '10.0.0.0/16'
      ]
    }
    // Subnets inline, so a redeployment never tries to delete them.
    subnets: [
      {
        name: 'snet-workload'
        properties: {
          addressPrefix: '10.0.0.0/24'
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
          addressPrefix: '10.0.1.0/27'
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
  name: 'id-variant-shared'
  location: location
  tags: tags
}

// Monitoring Metrics Publisher: The pool's identity publishes GPU telemetry through the data collection rule.
resource identityGpuDcrPublisher 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(gpuDcr.id, identity.id, '3913510d-42f4-4e42-8a64-420c390055eb')
  scope: gpuDcr
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '3913510d-42f4-4e42-8a64-420c390055eb')
    principalId: identity.properties.principalId
    principalType: 'ServicePrincipal'
    description: 'The pool\'s identity publishes GPU telemetry through the data collection rule.'
  }
}

// ---------------------------------------------------------------- key vault and encryption
// The landing zone's Key Vault (security.existingKeyVault), in its own subscription and resource
// group: referenced, not deployed. Its network rules, diagnostics and role assignments are its
// owner's; `gpuform validate` lists the role the pool's identity needs on it.

resource vault 'Microsoft.KeyVault/vaults@2025-05-01' existing = {
  name: 'kv-spoke-gpu'
  scope: resourceGroup('11111111-2222-3333-4444-555555555555', 'rg-spoke-keys')
}

// ---------------------------------------------------------------- compute
// Flexible orchestration, Standard_NC8as_T4_v3, image ubuntu-22.04. No public IPs on the instances.

resource vmss 'Microsoft.Compute/virtualMachineScaleSets@2025-11-01' = {
  // checkov:skip=CKV_AZURE_95: checkov fails every Flexible scale set here; automatic OS image upgrades would also swap the image under the GPU driver and CUDA stack. Roll out a new image by redeploying after testing the driver
  name: 'vmss-variant-shared'
  location: location
  tags: tags
  sku: {
    name: 'Standard_NC8as_T4_v3'
    tier: 'Standard'
    capacity: 1
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
        computerNamePrefix: 'variant-shared'
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
            name: 'nic-variant-shared'
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
}

// ---------------------------------------------------------------- monitoring

// The landing zone's central Log Analytics workspace (monitoring.existingWorkspace), in its own
// subscription and resource group: referenced, not deployed; its retention, tables and access
// are its owner's.
resource workspace 'Microsoft.OperationalInsights/workspaces@2025-02-01' existing = {
  name: 'log-platform-central'
  scope: resourceGroup('99999999-8888-7777-6666-555555555555', 'rg-platform-management')
}

// More than a tenth of the pool's VMs have been unavailable for 15 minutes (host or health failures).
resource alertVmAvailability 'Microsoft.Insights/metricAlerts@2018-03-01' = {
  name: 'alert-variant-shared-vm-availability'
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
        actionGroupId: '/subscriptions/99999999-8888-7777-6666-555555555555/resourceGroups/rg-platform-management/providers/microsoft.insights/actionGroups/ag-platform-oncall'
      }
    ]
  }
}

// Monthly budget for this resource group, in the billing currency (the spec says USD).
resource budget 'Microsoft.Consumption/budgets@2024-08-01' = {
  name: 'budget-variant-shared'
  properties: {
    category: 'Cost'
    amount: 2000
    timeGrain: 'Monthly'
    timePeriod: {
      startDate: budgetStartDate
    }
    notifications: {
      actual50: {
        enabled: true
        operator: 'GreaterThanOrEqualTo'
        threshold: 50
        thresholdType: 'Actual'
        // required by the API; the action groups below are the contacts
        contactEmails: []
        contactGroups: [
          '/subscriptions/99999999-8888-7777-6666-555555555555/resourceGroups/rg-platform-management/providers/microsoft.insights/actionGroups/ag-platform-oncall'
        ]
      }
      actual80: {
        enabled: true
        operator: 'GreaterThanOrEqualTo'
        threshold: 80
        thresholdType: 'Actual'
        // required by the API; the action groups below are the contacts
        contactEmails: []
        contactGroups: [
          '/subscriptions/99999999-8888-7777-6666-555555555555/resourceGroups/rg-platform-management/providers/microsoft.insights/actionGroups/ag-platform-oncall'
        ]
      }
      actual100: {
        enabled: true
        operator: 'GreaterThanOrEqualTo'
        threshold: 100
        thresholdType: 'Actual'
        // required by the API; the action groups below are the contacts
        contactEmails: []
        contactGroups: [
          '/subscriptions/99999999-8888-7777-6666-555555555555/resourceGroups/rg-platform-management/providers/microsoft.insights/actionGroups/ag-platform-oncall'
        ]
      }
    }
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

// The table GpuTelemetry_CL is the central workspace owner's to create before this deploys
// (`gpuform validate` lists it as a prerequisite): it is workspace configuration.

// No data collection endpoint: its logs ingestion must be in the existing workspace's region,
// which may not be the pool's, and without Private Link the agent needs none (Learn, "Data
// collection endpoints in Azure Monitor").

resource gpuDcr 'Microsoft.Insights/dataCollectionRules@2023-03-11' = {
  name: 'dcr-variant-shared-gpu'
  location: location
  tags: tags
  kind: 'Linux'
  properties: {
    description: 'GPU telemetry (JSON lines of the gpuform collector) into GpuTelemetry_CL.'
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
            name: 'RunningJobs'
            type: 'int'
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
        transformKql: 'source | project TimeGenerated = todatetime(TimeGenerated), Computer, VmId, Priority, ExpectedGpus, GpuIndex, GpuUuid, GpuName, UtilizationPercent, MemoryUsedMiB, MemoryTotalMiB, TemperatureC, PowerDrawW, EccUncorrected, XidErrors, XidCodes, DriverVersion, CudaVersion, RunningJobs, Status, Healthy, Message'
        outputStream: 'Custom-GpuTelemetry_CL'
      }
    ]
  }
}

resource gpuDcrAssociation 'Microsoft.Insights/dataCollectionRuleAssociations@2023-03-11' = {
  name: 'gpu-telemetry'
  scope: vmss
  properties: {
    description: 'Every VM of the scale set sends GPU telemetry through dcr-variant-shared-gpu.'
    dataCollectionRuleId: gpuDcr.id
  }
}

// Instances above the active autoscale profile's minimum whose GPUs averaged under 10% for 60 minutes at $0.752/h each (pay-as-you-go list price in eastus): the pool is not scaling in. Check the scale-in rule (queue threshold, cooldown) and the schedule's min.
resource gpuAlertIdle 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-variant-shared-gpu-idle'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'variant-shared: idle GPUs above the minimum'
    description: 'Instances above the active autoscale profile\'s minimum whose GPUs averaged under 10% for 60 minutes at $0.752/h each (pay-as-you-go list price in eastus): the pool is not scaling in. Check the scale-in rule (queue threshold, cooldown) and the schedule\'s min.'
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
          query: 'GpuTelemetry_CL\n| where Status == "ok"\n| summarize AvgUtilization = avg(UtilizationPercent) by Computer\n| summarize Instances = count(), IdleInstances = countif(AvgUtilization < 10)\n| extend MinuteOfWeek = (toint(dayofweek(now()) / 1d) + 6) % 7 * 1440 + hourofday(now()) * 60 + datetime_part("minute", now())\n| extend ProfileMin = 1\n| extend IdleAboveMin = max_of(0, min_of(IdleInstances, Instances - ProfileMin))\n| extend IdleCostPerHour = round(IdleAboveMin * 0.752, 2)'
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
        '/subscriptions/99999999-8888-7777-6666-555555555555/resourceGroups/rg-platform-management/providers/microsoft.insights/actionGroups/ag-platform-oncall'
      ]
      // e-mail subject with the measured value (preview; the common alert schema's paths)
      actionProperties: {
        'Email.Subject': 'variant-shared: \${data.alertContext.condition.allOf[0].metricValue} idle GPU instance(s) above the autoscale minimum, $0.752/h each (\${data.essentials.monitorCondition})'
      }
    }
  }
}

// A GPU used more than 90% of its memory in the last 15 minutes: a model or batch change that will run out of memory. The peak is also the measurement gpuMemoryGiB asks for (`gpuform gpu-report`).
resource gpuAlertVram 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-variant-shared-gpu-vram'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'variant-shared: VRAM pressure'
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
        '/subscriptions/99999999-8888-7777-6666-555555555555/resourceGroups/rg-platform-management/providers/microsoft.insights/actionGroups/ag-platform-oncall'
      ]
      // e-mail subject with the measured value (preview; the common alert schema's paths)
      actionProperties: {
        'Email.Subject': 'variant-shared: a GPU at \${data.alertContext.condition.allOf[0].metricValue}% of its VRAM (\${data.essentials.monitorCondition})'
      }
    }
  }
}

// A VM reported Xid or uncorrected ECC errors, a GPU missing from nvidia-smi, or a failing driver. Automatic repairs replaces a VM whose health probe stays unhealthy.
resource gpuAlertFaults 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-variant-shared-gpu-faults'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'variant-shared: GPU faults'
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
          query: 'GpuTelemetry_CL\n| where Status != "ok" or XidErrors > 0 or EccUncorrected > 0\n| extend Kind = case(Status != "ok", Status, XidErrors > 0, "xid", "ecc-uncorrected")\n| summarize FaultSamples = count(), XidCodeSet = make_set(XidCodes), LastMessage = take_any(Message) by Computer, Kind'
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
              name: 'Kind'
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
        '/subscriptions/99999999-8888-7777-6666-555555555555/resourceGroups/rg-platform-management/providers/microsoft.insights/actionGroups/ag-platform-oncall'
      ]
      // e-mail subject with the measured value (preview; the common alert schema's paths)
      actionProperties: {
        'Email.Subject': 'variant-shared: GPU fault on a VM, \${data.alertContext.condition.allOf[0].metricValue} faulty sample(s) (\${data.essentials.monitorCondition})'
      }
    }
  }
}

// GPU utilisation and memory per VM, instances by priority, queue length, idle GPU-hours and
// their cost this month, faults and the alerts fired.
resource gpuWorkbook 'Microsoft.Insights/workbooks@2023-06-01' = {
  name: guid(resourceGroup().id, 'variant-shared-gpu-workbook')
  location: location
  tags: tags
  kind: 'shared'
  properties: {
    displayName: 'GPU pool variant-shared'
    category: 'workbook'
    sourceId: workspace.id
    serializedData: '{"version":"Notebook/1.0","items":[{"type":1,"content":{"json":"## GPU pool `variant-shared`\\nSampled once a minute on every VM by the gpuform collector (`nvidia-smi`) into `GpuTelemetry_CL`. Idle: under 10% utilisation; VRAM alert above 90%."}},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where Status == \\"ok\\"\\n| summarize Utilization = avg(UtilizationPercent) by Computer, bin(TimeGenerated, 5m)","size":0,"title":"GPU utilisation per VM (%)","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"timechart"},"customWidth":"50","name":"GPU utilisation per VM (%)"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where Status == \\"ok\\"\\n| summarize MemoryGiB = max(MemoryUsedMiB) / 1024.0 by Computer, bin(TimeGenerated, 5m)","size":0,"title":"GPU memory used per VM (GiB, peak GPU)","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"timechart"},"customWidth":"50","name":"GPU memory used per VM (GiB, peak GPU)"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| summarize Instances = dcount(Computer) by Priority, bin(TimeGenerated, 5m)","size":0,"title":"Instances by priority","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"areachart"},"customWidth":"50","name":"Instances by priority"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where isnotnull(RunningJobs)\\n| summarize Jobs = max(RunningJobs) by Computer, bin(TimeGenerated, 5m)","size":0,"title":"Jobs the workload reports running, per VM","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"timechart"},"customWidth":"50","name":"Jobs the workload reports running, per VM"},{"type":3,"content":{"version":"KqlItem/1.0","query":"AzureMetrics\\n| where MetricName in (\\"ActiveMessages\\", \\"QueueMessageCount\\", \\"ObservedCapacity\\")\\n| summarize Value = avg(Average) by MetricName, bin(TimeGenerated, 5m)","size":0,"title":"Queue length and autoscale capacity","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"timechart"},"customWidth":"50","name":"Queue length and autoscale capacity"},{"type":3,"content":{"version":"KqlItem/1.0","query":"AutoscaleEvaluationsLog\\n| where ProfileSelected == true\\n| summarize ProfileMin = max(MinimumInstanceCount), ProfileMax = max(MaximumInstanceCount) by Profile, bin(TimeGenerated, 5m)","size":0,"title":"Active autoscale profile (min and max of the profile in force)","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"timechart"},"customWidth":"50","name":"Active autoscale profile (min and max of the profile in force)"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where TimeGenerated > startofmonth(now()) and Status == \\"ok\\"\\n| summarize Utilization = avg(UtilizationPercent) by Computer, bin(TimeGenerated, 1h)\\n| where Utilization < 10\\n| summarize IdleVmHours = count()\\n| extend IdleCostUSD = round(IdleVmHours * 0.752, 2)","size":0,"title":"Idle GPU-hours and their cost this month","timeContext":{"durationMs":2678400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"tiles"},"customWidth":"50","name":"Idle GPU-hours and their cost this month"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where Status != \\"ok\\" or XidErrors > 0 or EccUncorrected > 0\\n| project TimeGenerated, Computer, Status, XidErrors, XidCodes, EccUncorrected, Message\\n| order by TimeGenerated desc","size":0,"title":"GPU faults and health rows","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"table"},"customWidth":"50","name":"GPU faults and health rows"},{"type":3,"content":{"version":"KqlItem/1.0","query":"alertsmanagementresources\\n| where type =~ \\"microsoft.alertsmanagement/alerts\\"\\n| where tostring(properties.essentials.alertRule) contains \\"alert-variant-shared-\\"\\n| project FiredAt = todatetime(properties.essentials.startDateTime), Rule = tostring(properties.essentials.alertRule), Severity = tostring(properties.essentials.severity), State = tostring(properties.essentials.monitorCondition)\\n| order by FiredAt desc","size":0,"title":"Alerts fired","queryType":1,"resourceType":"microsoft.resourcegraph/resources","crossComponentResources":["value::all"],"visualization":"table"},"name":"Alerts fired"}],"isLocked":false,"fallbackResourceIds":[],"$schema":"https://github.com/Microsoft/Application-Insights-Workbooks/blob/master/schema/workbook.json"}'
  }
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
