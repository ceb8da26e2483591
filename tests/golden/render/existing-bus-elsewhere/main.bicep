// GPU pool `variant-bus`, rendered by gpuform from existing-bus-elsewhere.yaml.
// Generated file: change the spec and run `gpuform render` instead of editing it.
// Sections: parameters, network, identity, key vault and encryption, compute, autoscale,
// monitoring, outputs. azuredeploy.json is the same deployment as ARM JSON.
targetScope = 'resourceGroup'

metadata name = 'variant-bus'

// ---------------------------------------------------------------- parameters

@description('Region of every resource. main.bicepparam sets the spec\'s region (eastus).')
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

// cloud-init (existing-bus-elsewhere.yaml → compute.cloudInit, and the GPU collector of monitoring.gpu: multipart MIME), base64. Not secret: every VM can read it.
var customData = 'IyEvYmluL3NoCiMgZ3B1Zm9ybTogR1BVIGNvbGxlY3RvciAobnZpZGlhLXNtaSBvbmNlIGEgbWludXRlIC0+IC92YXIvbG9nL2dwdWZvcm0vZ3B1LSouanNvbiAtPiBBenVyZSBNb25pdG9yIEFnZW50KQojIGFuZCB0aGUgaGVhbHRoIGVuZHBvaW50IHRoZSBBcHBsaWNhdGlvbiBIZWFsdGggZXh0ZW5zaW9uIHByb2JlcyAoMTI3LjAuMC4xOjg3MTEpLgpzZXQgLWV1Cmluc3RhbGwgLWQgLW0gMDc1NSAvdXNyL2xvY2FsL2xpYi9ncHVmb3JtIC92YXIvbG9nL2dwdWZvcm0KY2F0ID4gL3Vzci9sb2NhbC9saWIvZ3B1Zm9ybS9ncHVmb3JtLWdwdSA8PCdHUFVGT1JNX0VPRicKIyEvdXNyL2Jpbi9weXRob24zCiMgZ3B1Zm9ybSBHUFUgY29sbGVjdG9yIChyZW5kZXJlZCBieSBncHVmb3JtOyBpbnN0YWxsZWQgYnkgY2xvdWQtaW5pdCwgcnVuIGJ5IHN5c3RlbWQpLgojCiMgICBncHVmb3JtLWdwdSBjb2xsZWN0IEVYUEVDVEVEIFtudmlkaWF8YW1kXQojICAgICAgICAgICAgICAgICAgICAgICAgb25jZSBhIG1pbnV0ZSAoZ3B1Zm9ybS1ncHUtY29sbGVjdC50aW1lcik6IG9uZSBKU09OIGxpbmUgcGVyIEdQVSBpbnRvCiMgICAgICAgICAgICAgICAgICAgICAgICAvdmFyL2xvZy9ncHVmb3JtL2dwdS1ZWVlZTU1ERC5qc29uLCByZWFkIGJ5IHRoZSBBenVyZSBNb25pdG9yIEFnZW50CiMgICAgICAgICAgICAgICAgICAgICAgICAoZGF0YSBjb2xsZWN0aW9uIHJ1bGUsIGxvZ0ZpbGVzL2pzb24pIGludG8gdGhlIEdwdVRlbGVtZXRyeV9DTCB0YWJsZTsKIyAgICAgICAgICAgICAgICAgICAgICAgIGEgVk0gd2hvc2UgR1BVIHRvb2wgZmFpbHMsIG9yIHRoYXQgc2hvd3MgZmV3ZXIgR1BVcyB0aGFuIGl0cyBzaXplIGhhcywKIyAgICAgICAgICAgICAgICAgICAgICAgIHdyaXRlcyBvbmUgaGVhbHRoIHJvdyAoU3RhdHVzICE9ICJvayIpIGluc3RlYWQuCiMgICAgICAgICAgICAgICAgICAgICAgICBOVklESUE6IG52aWRpYS1zbWkuIEFNRDogYW1kLXNtaSAoUk9DbSA2Lng7IGJvdGggSlNPTiBzaGFwZXMpLCBlbHNlCiMgICAgICAgICAgICAgICAgICAgICAgICByb2NtLXNtaSAob2xkZXIgaW1hZ2VzKTsgR1BVcyBjb3VudGVkIG9uIHRoZSBQQ0kgYnVzIHRvby4gQW4gQU1EIGltYWdlCiMgICAgICAgICAgICAgICAgICAgICAgICB3aXRob3V0IGVpdGhlciB0b29sIHdyaXRlcyBgdG9vbC1taXNzaW5nYCByb3dzIGFuZCBzdGF5cyBoZWFsdGh5LgojICAgZ3B1Zm9ybS1ncHUgc2VydmUgICAgdGhlIGhlYWx0aCBlbmRwb2ludCB0aGUgQXBwbGljYXRpb24gSGVhbHRoIGV4dGVuc2lvbiBwcm9iZXMKIyAgICAgICAgICAgICAgICAgICAgICAgICgxMjcuMC4wLjEgb25seSk6IDIwMCB7IkFwcGxpY2F0aW9uSGVhbHRoU3RhdGUiOiAiSGVhbHRoeSJ9IHdoaWxlIHRoZQojICAgICAgICAgICAgICAgICAgICAgICAgbGFzdCBzYW1wbGUgaXMgZnJlc2ggYW5kIGhlYWx0aHksIDUwMyAiVW5oZWFsdGh5IiBvdGhlcndpc2UuCiMKIyBQeXRob24gMyBzdGFuZGFyZCBsaWJyYXJ5IG9ubHkgKGV2ZXJ5IFVidW50dSBpbWFnZSBoYXMgcHl0aG9uMzogY2xvdWQtaW5pdCBydW5zIG9uIGl0KS4KIyBFbnZpcm9ubWVudCAodGVzdHMpOiBHUFVGT1JNX0dQVV9MT0dfRElSLCBHUFVGT1JNX0dQVV9TVEFURV9ESVIsIEdQVUZPUk1fSU1EU19GSUxFLAojIEdQVUZPUk1fTk9XIChJU08gODYwMSBVVEMpLCBHUFVGT1JNX1BDSV9ESVIsIEdQVUZPUk1fUk9DTV9ESVIuCmltcG9ydCBkYXRldGltZQppbXBvcnQgZ2xvYgppbXBvcnQgaHR0cC5zZXJ2ZXIKaW1wb3J0IGpzb24KaW1wb3J0IG9zCmltcG9ydCByZQppbXBvcnQgc29ja2V0CmltcG9ydCBzdWJwcm9jZXNzCmltcG9ydCBzeXMKaW1wb3J0IHVybGxpYi5yZXF1ZXN0CgpRVUVSWSA9ICgKICAgICJ0aW1lc3RhbXAsaW5kZXgsdXVpZCxuYW1lLHV0aWxpemF0aW9uLmdwdSxtZW1vcnkudXNlZCxtZW1vcnkudG90YWwsdGVtcGVyYXR1cmUuZ3B1LCIKICAgICJwb3dlci5kcmF3LGVjYy5lcnJvcnMudW5jb3JyZWN0ZWQudm9sYXRpbGUudG90YWwsZHJpdmVyX3ZlcnNpb24iCikKTE9HX0RJUiA9IG9zLmVudmlyb24uZ2V0KCJHUFVGT1JNX0dQVV9MT0dfRElSIiwgIi92YXIvbG9nL2dwdWZvcm0iKQpTVEFURV9ESVIgPSBvcy5lbnZpcm9uLmdldCgiR1BVRk9STV9HUFVfU1RBVEVfRElSIiwgIi9ydW4vZ3B1Zm9ybSIpCktFRVBfREFZUyA9IDIKWElEID0gcmUuY29tcGlsZShyIk5WUk06IFhpZCBcKFteKV0qXCk6IChcZCspIikKCgpkZWYgbm93KCk6CiAgICBmaXhlZCA9IG9zLmVudmlyb24uZ2V0KCJHUFVGT1JNX05PVyIpCiAgICBpZiBmaXhlZDoKICAgICAgICByZXR1cm4gZGF0ZXRpbWUuZGF0ZXRpbWUuc3RycHRpbWUoZml4ZWQsICIlWS0lbS0lZFQlSDolTTolU1oiKS5yZXBsYWNlKAogICAgICAgICAgICB0emluZm89ZGF0ZXRpbWUudGltZXpvbmUudXRjCiAgICAgICAgKQogICAgcmV0dXJuIGRhdGV0aW1lLmRhdGV0aW1lLm5vdyhkYXRldGltZS50aW1lem9uZS51dGMpLnJlcGxhY2UobWljcm9zZWNvbmQ9MCkKCgpkZWYgcnVuKGNtZCk6CiAgICB0cnk6CiAgICAgICAgcCA9IHN1YnByb2Nlc3MucnVuKGNtZCwgY2FwdHVyZV9vdXRwdXQ9VHJ1ZSwgdGV4dD1UcnVlLCB0aW1lb3V0PTMwKQogICAgICAgIHJldHVybiBwLnJldHVybmNvZGUsIHAuc3Rkb3V0LCBwLnN0ZGVycgogICAgZXhjZXB0IChPU0Vycm9yLCBzdWJwcm9jZXNzLlRpbWVvdXRFeHBpcmVkKSBhcyBlOgogICAgICAgIHJldHVybiAxMjcsICIiLCBzdHIoZSkKCgpkZWYgbnVtKHYpOgogICAgIiIiQSBudW1iZXIgZnJvbSBudmlkaWEtc21pJ3MgQ1NWLCBvciBOb25lIGZvciBbTi9BXSwgW05vdCBTdXBwb3J0ZWRdLCBbVW5rbm93biBFcnJvcl0uIiIiCiAgICB2ID0gdi5zdHJpcCgpCiAgICB0cnk6CiAgICAgICAgcmV0dXJuIGZsb2F0KHYpCiAgICBleGNlcHQgVmFsdWVFcnJvcjoKICAgICAgICByZXR1cm4gTm9uZQoKCmRlZiBpbnRlZ2VyKHYpOgogICAgbiA9IG51bSh2KQogICAgcmV0dXJuIE5vbmUgaWYgbiBpcyBOb25lIGVsc2UgaW50KG4pCgoKZGVmIGltZHMoKToKICAgICIiIlByaW9yaXR5IChTcG90L1JlZ3VsYXIpIGFuZCBWTSBpZCBmcm9tIHRoZSBpbnN0YW5jZSBtZXRhZGF0YSBzZXJ2aWNlLCBjYWNoZWQgcGVyIGJvb3QuIiIiCiAgICBjYWNoZSA9IG9zLnBhdGguam9pbihTVEFURV9ESVIsICJpbWRzLmpzb24iKQogICAgc3JjID0gb3MuZW52aXJvbi5nZXQoIkdQVUZPUk1fSU1EU19GSUxFIikKICAgIHRyeToKICAgICAgICBpZiBzcmM6CiAgICAgICAgICAgIHdpdGggb3BlbihzcmMpIGFzIGY6CiAgICAgICAgICAgICAgICByZXR1cm4ganNvbi5sb2FkKGYpCiAgICAgICAgd2l0aCBvcGVuKGNhY2hlKSBhcyBmOgogICAgICAgICAgICByZXR1cm4ganNvbi5sb2FkKGYpCiAgICBleGNlcHQgKE9TRXJyb3IsIFZhbHVlRXJyb3IpOgogICAgICAgIHBhc3MKICAgIGlmIHNyYzoKICAgICAgICByZXR1cm4ge30KICAgIHRyeToKICAgICAgICByZXEgPSB1cmxsaWIucmVxdWVzdC5SZXF1ZXN0KAogICAgICAgICAgICAiaHR0cDovLzE2OS4yNTQuMTY5LjI1NC9tZXRhZGF0YS9pbnN0YW5jZS9jb21wdXRlP2FwaS12ZXJzaW9uPTIwMjEtMDItMDEiLAogICAgICAgICAgICBoZWFkZXJzPXsiTWV0YWRhdGEiOiAidHJ1ZSJ9LAogICAgICAgICkKICAgICAgICB3aXRoIHVybGxpYi5yZXF1ZXN0LnVybG9wZW4ocmVxLCB0aW1lb3V0PTIpIGFzIHI6CiAgICAgICAgICAgIGRhdGEgPSBqc29uLmxvYWQocikKICAgICAgICB3aXRoIG9wZW4oY2FjaGUsICJ3IikgYXMgZjoKICAgICAgICAgICAganNvbi5kdW1wKGRhdGEsIGYpCiAgICAgICAgcmV0dXJuIGRhdGEKICAgIGV4Y2VwdCAoT1NFcnJvciwgVmFsdWVFcnJvcik6CiAgICAgICAgcmV0dXJuIHt9CgoKZGVmIGN1ZGFfdmVyc2lvbigpOgogICAgcmMsIG91dCwgXyA9IHJ1bihbIm52aWRpYS1zbWkiXSkKICAgIG0gPSByZS5zZWFyY2gociJDVURBIFZlcnNpb246XHMqKFswLTkuXSspIiwgb3V0KSBpZiByYyA9PSAwIGVsc2UgTm9uZQogICAgcmV0dXJuIG0uZ3JvdXAoMSkgaWYgbSBlbHNlICIiCgoKZGVmIHhpZF9lcnJvcnMoc2luY2VfZmlsZSk6CiAgICAiIiJYaWQgZXZlbnRzIGluIHRoZSBrZXJuZWwgbG9nIHNpbmNlIHRoZSBwcmV2aW91cyBzYW1wbGU6IChjb3VudCwgIjc5LDQ4IikuIiIiCiAgICBzaW5jZSA9IE5vbmUKICAgIHRyeToKICAgICAgICB3aXRoIG9wZW4oc2luY2VfZmlsZSkgYXMgZjoKICAgICAgICAgICAgc2luY2UgPSBmLnJlYWQoKS5zdHJpcCgpCiAgICBleGNlcHQgT1NFcnJvcjoKICAgICAgICBwYXNzCiAgICBjbWQgPSBbImpvdXJuYWxjdGwiLCAiLWsiLCAiLW8iLCAiY2F0IiwgIi0tbm8tcGFnZXIiXQogICAgY21kICs9IFsiLS1zaW5jZSIsIHNpbmNlXSBpZiBzaW5jZSBlbHNlIFsiLWIiXQogICAgcmMsIG91dCwgXyA9IHJ1bihjbWQpCiAgICBjb2RlcyA9IFhJRC5maW5kYWxsKG91dCkgaWYgcmMgPT0gMCBlbHNlIFtdCiAgICByZXR1cm4gbGVuKGNvZGVzKSwgIiwiLmpvaW4oc29ydGVkKHNldChjb2RlcyksIGtleT1pbnQpKQoKCiMgLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLSBBTUQgKFJPQ20pClZFTkRPUlMgPSAoIm52aWRpYSIsICJhbWQiKQpQQ0lfRElSID0gb3MuZW52aXJvbi5nZXQoIkdQVUZPUk1fUENJX0RJUiIsICIvc3lzL2J1cy9wY2kvZGV2aWNlcyIpClJPQ01fRElSID0gb3MuZW52aXJvbi5nZXQoIkdQVUZPUk1fUk9DTV9ESVIiLCAiL29wdC9yb2NtIikKQU1EX1BDSV9WRU5ET1IgPSAiMHgxMDAyIgojIFBDSSBiYXNlIGNsYXNzZXMgb2YgYSBHUFU6IDB4MDMgZGlzcGxheSBjb250cm9sbGVyIChSYWRlb24gUFJPLCBWNzEwKSwgMHgxMiBwcm9jZXNzaW5nCiMgYWNjZWxlcmF0b3IgKEluc3RpbmN0KTsgdGhlIEdQVXMnIEhETUkvRFAgYXVkaW8gZnVuY3Rpb25zICgweDA0KSBhcmUgbm90IEdQVXMKR1BVX1BDSV9DTEFTU0VTID0gKCIweDAzIiwgIjB4MTIiKQpST0NNX1NNSV9BUkdTID0gWwogICAgIi0tc2hvd3VzZSIsICItLXNob3dtZW1pbmZvIiwgInZyYW0iLCAiLS1zaG93dGVtcCIsICItLXNob3dwb3dlciIsCiAgICAiLS1zaG93cHJvZHVjdG5hbWUiLCAiLS1zaG93dW5pcXVlaWQiLCAiLS1zaG93ZHJpdmVydmVyc2lvbiIsICItLWpzb24iLApdCgoKZGVmIHBjaV9ncHVzKHZlbmRvcik6CiAgICAiIiJHUFVzIG9mIGB2ZW5kb3JgIG9uIHRoZSBQQ0kgYnVzOiBjb3VudGVkIHdpdGhvdXQgdGhlIGRyaXZlciBvciBhbnkgdG9vbC4iIiIKICAgIG4gPSAwCiAgICBmb3IgZGV2IGluIGdsb2IuZ2xvYihvcy5wYXRoLmpvaW4oUENJX0RJUiwgIioiKSk6CiAgICAgICAgdHJ5OgogICAgICAgICAgICB3aXRoIG9wZW4ob3MucGF0aC5qb2luKGRldiwgInZlbmRvciIpKSBhcyBmOgogICAgICAgICAgICAgICAgdiA9IGYucmVhZCgpLnN0cmlwKCkubG93ZXIoKQogICAgICAgICAgICB3aXRoIG9wZW4ob3MucGF0aC5qb2luKGRldiwgImNsYXNzIikpIGFzIGY6CiAgICAgICAgICAgICAgICBjID0gZi5yZWFkKCkuc3RyaXAoKS5sb3dlcigpCiAgICAgICAgZXhjZXB0IE9TRXJyb3I6CiAgICAgICAgICAgIGNvbnRpbnVlCiAgICAgICAgaWYgdiA9PSB2ZW5kb3IgYW5kIGMuc3RhcnRzd2l0aChHUFVfUENJX0NMQVNTRVMpOgogICAgICAgICAgICBuICs9IDEKICAgIHJldHVybiBuCgoKZGVmIGZpbmRfdG9vbChuYW1lKToKICAgICIiImBuYW1lYCBvbiBQQVRILCBlbHNlIGluIFJPQ20ncyBiaW4gZGlyZWN0b3J5IChzeXN0ZW1kJ3MgUEFUSCBoYXMgbm8gL29wdC9yb2NtL2JpbikuIiIiCiAgICBmb3IgZCBpbiBvcy5lbnZpcm9uLmdldCgiUEFUSCIsICIiKS5zcGxpdChvcy5wYXRoc2VwKSArIFtvcy5wYXRoLmpvaW4oUk9DTV9ESVIsICJiaW4iKV06CiAgICAgICAgcCA9IG9zLnBhdGguam9pbihkLCBuYW1lKQogICAgICAgIGlmIGQgYW5kIG9zLnBhdGguaXNmaWxlKHApIGFuZCBvcy5hY2Nlc3MocCwgb3MuWF9PSyk6CiAgICAgICAgICAgIHJldHVybiBwCiAgICByZXR1cm4gTm9uZQoKCmRlZiByb2NtX3ZlcnNpb24oKToKICAgICIiIlRoZSBpbnN0YWxsZWQgUk9DbSByZWxlYXNlICgvb3B0L3JvY20vLmluZm8vdmVyc2lvbiwgZS5nLiA2LjIuMS0xMTIgLT4gNi4yLjEpLiIiIgogICAgdHJ5OgogICAgICAgIHdpdGggb3Blbihvcy5wYXRoLmpvaW4oUk9DTV9ESVIsICIuaW5mbyIsICJ2ZXJzaW9uIikpIGFzIGY6CiAgICAgICAgICAgIHJldHVybiBmLnJlYWQoKS5zdHJpcCgpLnNwbGl0KCItIilbMF0KICAgIGV4Y2VwdCBPU0Vycm9yOgogICAgICAgIHJldHVybiAiIgoKCmRlZiBsb2FkX2pzb24ob3V0KToKICAgICIiIlRoZSBKU09OIGRvY3VtZW50IGluIGEgdG9vbCdzIG91dHB1dCwgb3IgTm9uZS4gTGluZXMgYmVmb3JlIGl0IGFyZSBza2lwcGVkLCBhbHNvIHdoZW4KICAgIHRoZXkgaG9sZCBicmFja2V0cyB0aGVtc2VsdmVzICgiW1dBUk5JTkddIC4uLiIpOiBldmVyeSBbIG9yIHsgaXMgdHJpZWQgaW4gdHVybi4iIiIKICAgIGRlY29kZXIgPSBqc29uLkpTT05EZWNvZGVyKCkKICAgIGZvciBpLCBjaCBpbiBlbnVtZXJhdGUob3V0KToKICAgICAgICBpZiBjaCBub3QgaW4gIlt7IjoKICAgICAgICAgICAgY29udGludWUKICAgICAgICB0cnk6CiAgICAgICAgICAgIGRvYyA9IGRlY29kZXIucmF3X2RlY29kZShvdXRbaTpdKVswXQogICAgICAgIGV4Y2VwdCBWYWx1ZUVycm9yOgogICAgICAgICAgICBjb250aW51ZQogICAgICAgIGlmIGlzaW5zdGFuY2UoZG9jLCAobGlzdCwgZGljdCkpOgogICAgICAgICAgICByZXR1cm4gZG9jCiAgICByZXR1cm4gTm9uZQoKCmRlZiBhbWRfbGlzdChkYXRhKToKICAgICIiImFtZC1zbWkncyBwZXItR1BVIG9iamVjdHM6IGEgbGlzdCAoUk9DbSA2LngpIG9yIHsiZ3B1X2RhdGEiOiBbLi4uXX0gKGxhdGVyIHJlbGVhc2VzKS4iIiIKICAgIGlmIGlzaW5zdGFuY2UoZGF0YSwgZGljdCk6CiAgICAgICAgZGF0YSA9IGRhdGEuZ2V0KCJncHVfZGF0YSIpCiAgICBpZiBub3QgaXNpbnN0YW5jZShkYXRhLCBsaXN0KToKICAgICAgICByZXR1cm4gTm9uZQogICAgcmV0dXJuIFtnIGZvciBnIGluIGRhdGEgaWYgaXNpbnN0YW5jZShnLCBkaWN0KSBhbmQgaXNpbnN0YW5jZShnLmdldCgiZ3B1IiksIGludCldCgoKZGVmIHZhbHVlKHYpOgogICAgIiIiQW4gYW1kLXNtaS9yb2NtLXNtaSBmaWVsZCBhcyBhIG51bWJlcjogcGxhaW4gKFJPQ20gNi4wKSwgeyJ2YWx1ZSI6IC4uLCAidW5pdCI6IC4ufQogICAgKDYuMSBhbmQgbGF0ZXIpIG9yIGEgc3RyaW5nOyBOb25lIGZvciAiTi9BIiBhbmQgYW55dGhpbmcgZWxzZS4iIiIKICAgIGlmIGlzaW5zdGFuY2UodiwgZGljdCk6CiAgICAgICAgdiA9IHYuZ2V0KCJ2YWx1ZSIpCiAgICBpZiBpc2luc3RhbmNlKHYsIGJvb2wpOgogICAgICAgIHJldHVybiBOb25lCiAgICBpZiBpc2luc3RhbmNlKHYsIChpbnQsIGZsb2F0KSk6CiAgICAgICAgcmV0dXJuIGZsb2F0KHYpCiAgICBpZiBpc2luc3RhbmNlKHYsIHN0cikgYW5kIHYuc3RyaXAoKToKICAgICAgICByZXR1cm4gbnVtKHYuc3BsaXQoKVswXSkKICAgIHJldHVybiBOb25lCgoKZGVmIHBpY2soZCwgKnBhdGhzKToKICAgICIiIlRoZSBmaXJzdCBvZiBgcGF0aHNgIChrZXkgdHVwbGVzKSB0aGF0IGhvbGRzIGEgbnVtYmVyLiIiIgogICAgZm9yIHBhdGggaW4gcGF0aHM6CiAgICAgICAgdiA9IGQKICAgICAgICBmb3IgayBpbiBwYXRoOgogICAgICAgICAgICB2ID0gdi5nZXQoaykgaWYgaXNpbnN0YW5jZSh2LCBkaWN0KSBlbHNlIE5vbmUKICAgICAgICBuID0gdmFsdWUodikKICAgICAgICBpZiBuIGlzIG5vdCBOb25lOgogICAgICAgICAgICByZXR1cm4gbgogICAgcmV0dXJuIE5vbmUKCgpkZWYgdGV4dCh2KToKICAgIHJldHVybiB2LnN0cmlwKCkgaWYgaXNpbnN0YW5jZSh2LCBzdHIpIGFuZCB2LnN0cmlwKCkgIT0gIk4vQSIgZWxzZSAiIgoKCmRlZiBhbWRfc21pX3Jvd3MoYmFzZSwgdG9vbCk6CiAgICAiIiIocm93cywgZXJyb3IgbWVzc2FnZSk6IGFtZC1zbWkgbWV0cmljL3N0YXRpYy9saXN0IC0tanNvbiwgb25lIHJvdyBwZXIgR1BVLiIiIgogICAgcmMsIG91dCwgZXJyID0gcnVuKFt0b29sLCAibWV0cmljIiwgIi0tanNvbiJdKQogICAgbWV0cmljID0gYW1kX2xpc3QobG9hZF9qc29uKG91dCkpCiAgICBpZiBtZXRyaWMgaXMgTm9uZToKICAgICAgICBtc2cgPSAoZXJyIG9yIG91dCkuc3RyaXAoKS5zcGxpdGxpbmVzKCkKICAgICAgICByZXR1cm4gW10sIChtc2dbMF0gaWYgbXNnIGVsc2UgImFtZC1zbWkgbWV0cmljIGV4aXRlZCAlZCIgJSByYykKICAgIHN0YXRpYyA9IHtnWyJncHUiXTogZyBmb3IgZyBpbiBhbWRfbGlzdChsb2FkX2pzb24ocnVuKFt0b29sLCAic3RhdGljIiwgIi0tanNvbiJdKVsxXSkpIG9yIFtdfQogICAgbGlzdGVkID0ge2dbImdwdSJdOiBnIGZvciBnIGluIGFtZF9saXN0KGxvYWRfanNvbihydW4oW3Rvb2wsICJsaXN0IiwgIi0tanNvbiJdKVsxXSkpIG9yIFtdfQogICAgcm9jbSA9IHJvY21fdmVyc2lvbigpCiAgICByb3dzID0gW10KICAgIGZvciBtIGluIHNvcnRlZChtZXRyaWMsIGtleT1sYW1iZGEgZzogZ1siZ3B1Il0pOgogICAgICAgIHMgPSBzdGF0aWMuZ2V0KG1bImdwdSJdLCB7fSkKICAgICAgICBkcml2ZXIgPSBzLmdldCgiZHJpdmVyIikgaWYgaXNpbnN0YW5jZShzLmdldCgiZHJpdmVyIiksIGRpY3QpIGVsc2Uge30KICAgICAgICBhc2ljID0gcy5nZXQoImFzaWMiKSBpZiBpc2luc3RhbmNlKHMuZ2V0KCJhc2ljIiksIGRpY3QpIGVsc2Uge30KICAgICAgICBlY2MgPSBwaWNrKG0sICgiZWNjIiwgInRvdGFsX3VuY29ycmVjdGFibGVfY291bnQiKSwgKCJlY2MiLCAidG90YWxfdW5jb3JyZWN0YWJsZSIpKQogICAgICAgIHJvd3MuYXBwZW5kKAogICAgICAgICAgICBkaWN0KAogICAgICAgICAgICAgICAgYmFzZSwKICAgICAgICAgICAgICAgIEdwdUluZGV4PW1bImdwdSJdLAogICAgICAgICAgICAgICAgR3B1VXVpZD10ZXh0KGxpc3RlZC5nZXQobVsiZ3B1Il0sIHt9KS5nZXQoInV1aWQiKSksCiAgICAgICAgICAgICAgICBHcHVOYW1lPXRleHQoYXNpYy5nZXQoIm1hcmtldF9uYW1lIikpLAogICAgICAgICAgICAgICAgVXRpbGl6YXRpb25QZXJjZW50PXBpY2sobSwgKCJ1c2FnZSIsICJnZnhfYWN0aXZpdHkiKSwgKCJ1c2FnZSIsICJnZnhfdXNhZ2UiKSksCiAgICAgICAgICAgICAgICBNZW1vcnlVc2VkTWlCPXBpY2sobSwgKCJtZW1fdXNhZ2UiLCAidXNlZF92cmFtIikpLAogICAgICAgICAgICAgICAgTWVtb3J5VG90YWxNaUI9cGljayhtLCAoIm1lbV91c2FnZSIsICJ0b3RhbF92cmFtIikpLAogICAgICAgICAgICAgICAgVGVtcGVyYXR1cmVDPXBpY2sobSwgKCJ0ZW1wZXJhdHVyZSIsICJob3RzcG90IiksICgidGVtcGVyYXR1cmUiLCAiZWRnZSIpKSwKICAgICAgICAgICAgICAgIFBvd2VyRHJhd1c9cGljaygKICAgICAgICAgICAgICAgICAgICBtLAogICAgICAgICAgICAgICAgICAgICgicG93ZXIiLCAic29ja2V0X3Bvd2VyIiksCiAgICAgICAgICAgICAgICAgICAgKCJwb3dlciIsICJjdXJyZW50X3NvY2tldF9wb3dlciIpLAogICAgICAgICAgICAgICAgICAgICgicG93ZXIiLCAiYXZlcmFnZV9zb2NrZXRfcG93ZXIiKSwKICAgICAgICAgICAgICAgICAgICAoInBvd2VyIiwgImN1cnJlbnRfcG93ZXIiKSwKICAgICAgICAgICAgICAgICksCiAgICAgICAgICAgICAgICBFY2NVbmNvcnJlY3RlZD1Ob25lIGlmIGVjYyBpcyBOb25lIGVsc2UgaW50KGVjYyksCiAgICAgICAgICAgICAgICBEcml2ZXJWZXJzaW9uPXRleHQoZHJpdmVyLmdldCgidmVyc2lvbiIpKSBvciB0ZXh0KGRyaXZlci5nZXQoImRyaXZlcl92ZXJzaW9uIikpLAogICAgICAgICAgICAgICAgQ3VkYVZlcnNpb249cm9jbSwKICAgICAgICAgICAgKQogICAgICAgICkKICAgIHJldHVybiByb3dzLCAiIgoKCmRlZiByb2NtX3NtaV9yb3dzKGJhc2UsIHRvb2wpOgogICAgIiIiKHJvd3MsIGVycm9yIG1lc3NhZ2UpOiByb2NtLXNtaSAtLWpzb24gKHsiY2FyZDAiOiB7Li4ufSwgInN5c3RlbSI6IHsuLi59fSkuIiIiCiAgICByYywgb3V0LCBlcnIgPSBydW4oW3Rvb2xdICsgUk9DTV9TTUlfQVJHUykKICAgIGRhdGEgPSBsb2FkX2pzb24ob3V0KQogICAgY2FyZHMgPSBbXQogICAgaWYgaXNpbnN0YW5jZShkYXRhLCBkaWN0KToKICAgICAgICBjYXJkcyA9IHNvcnRlZCgKICAgICAgICAgICAgKGludChrWzQ6XSksIHYpIGZvciBrLCB2IGluIGRhdGEuaXRlbXMoKQogICAgICAgICAgICBpZiBrLnN0YXJ0c3dpdGgoImNhcmQiKSBhbmQga1s0Ol0uaXNkaWdpdCgpIGFuZCBpc2luc3RhbmNlKHYsIGRpY3QpCiAgICAgICAgKQogICAgaWYgbm90IGlzaW5zdGFuY2UoZGF0YSwgZGljdCk6CiAgICAgICAgbXNnID0gKGVyciBvciBvdXQpLnN0cmlwKCkuc3BsaXRsaW5lcygpCiAgICAgICAgcmV0dXJuIFtdLCAobXNnWzBdIGlmIG1zZyBlbHNlICJyb2NtLXNtaSBleGl0ZWQgJWQiICUgcmMpCiAgICBzeXN0ZW0gPSBkYXRhLmdldCgic3lzdGVtIikgaWYgaXNpbnN0YW5jZShkYXRhLmdldCgic3lzdGVtIiksIGRpY3QpIGVsc2Uge30KICAgIHJvY20gPSByb2NtX3ZlcnNpb24oKQogICAgcm93cyA9IFtdCiAgICBmb3IgaW5kZXgsIGMgaW4gY2FyZHM6CiAgICAgICAgdG90YWwgPSBwaWNrKGMsICgiVlJBTSBUb3RhbCBNZW1vcnkgKEIpIiwpKQogICAgICAgIHVzZWQgPSBwaWNrKGMsICgiVlJBTSBUb3RhbCBVc2VkIE1lbW9yeSAoQikiLCkpCiAgICAgICAgcm93cy5hcHBlbmQoCiAgICAgICAgICAgIGRpY3QoCiAgICAgICAgICAgICAgICBiYXNlLAogICAgICAgICAgICAgICAgR3B1SW5kZXg9aW5kZXgsCiAgICAgICAgICAgICAgICBHcHVVdWlkPXRleHQoYy5nZXQoIlVuaXF1ZSBJRCIpKSwKICAgICAgICAgICAgICAgIEdwdU5hbWU9dGV4dChjLmdldCgiQ2FyZCBzZXJpZXMiKSBvciBjLmdldCgiQ2FyZCBTZXJpZXMiKSksCiAgICAgICAgICAgICAgICBVdGlsaXphdGlvblBlcmNlbnQ9cGljayhjLCAoIkdQVSB1c2UgKCUpIiwpKSwKICAgICAgICAgICAgICAgIE1lbW9yeVVzZWRNaUI9Tm9uZSBpZiB1c2VkIGlzIE5vbmUgZWxzZSB1c2VkIC8gMTA0ODU3NiwKICAgICAgICAgICAgICAgIE1lbW9yeVRvdGFsTWlCPU5vbmUgaWYgdG90YWwgaXMgTm9uZSBlbHNlIHRvdGFsIC8gMTA0ODU3NiwKICAgICAgICAgICAgICAgIFRlbXBlcmF0dXJlQz1waWNrKAogICAgICAgICAgICAgICAgICAgIGMsICgiVGVtcGVyYXR1cmUgKFNlbnNvciBqdW5jdGlvbikgKEMpIiwpLCAoIlRlbXBlcmF0dXJlIChTZW5zb3IgZWRnZSkgKEMpIiwpCiAgICAgICAgICAgICAgICApLAogICAgICAgICAgICAgICAgUG93ZXJEcmF3Vz1waWNrKAogICAgICAgICAgICAgICAgICAgIGMsCiAgICAgICAgICAgICAgICAgICAgKCJDdXJyZW50IFNvY2tldCBHcmFwaGljcyBQYWNrYWdlIFBvd2VyIChXKSIsKSwKICAgICAgICAgICAgICAgICAgICAoIkF2ZXJhZ2UgR3JhcGhpY3MgUGFja2FnZSBQb3dlciAoVykiLCksCiAgICAgICAgICAgICAgICApLAogICAgICAgICAgICAgICAgRWNjVW5jb3JyZWN0ZWQ9Tm9uZSwKICAgICAgICAgICAgICAgIERyaXZlclZlcnNpb249dGV4dChzeXN0ZW0uZ2V0KCJEcml2ZXIgdmVyc2lvbiIpKSwKICAgICAgICAgICAgICAgIEN1ZGFWZXJzaW9uPXJvY20sCiAgICAgICAgICAgICkKICAgICAgICApCiAgICByZXR1cm4gcm93cywgIiIKCgpkZWYgYW1kX3Jvd3MoYmFzZSwgZXhwZWN0ZWQpOgogICAgIiIiT25lIHJvdyBwZXIgQU1EIEdQVSwgb3Igb25lIGhlYWx0aCByb3cuIFhpZCBpcyBOVklESUEnczogWGlkRXJyb3JzL1hpZENvZGVzIHN0YXkgZW1wdHkuIiIiCiAgICBvbl9idXMgPSBwY2lfZ3B1cyhBTURfUENJX1ZFTkRPUikKICAgIGVtcHR5ID0gZGljdChiYXNlLCBYaWRFcnJvcnM9Tm9uZSwgWGlkQ29kZXM9IiIpCiAgICB0b29sID0gZmluZF90b29sKCJhbWQtc21pIikKICAgIG5hbWUgPSAiYW1kLXNtaSIKICAgIGlmIHRvb2wgaXMgTm9uZToKICAgICAgICB0b29sID0gZmluZF90b29sKCJyb2NtLXNtaSIpCiAgICAgICAgbmFtZSA9ICJyb2NtLXNtaSIKICAgIGlmIHRvb2wgaXMgTm9uZToKICAgICAgICBpZiBvbl9idXMgPCBleHBlY3RlZDoKICAgICAgICAgICAgcmV0dXJuIFsKICAgICAgICAgICAgICAgIGRpY3QoCiAgICAgICAgICAgICAgICAgICAgZW1wdHksCiAgICAgICAgICAgICAgICAgICAgR3B1SW5kZXg9Tm9uZSwKICAgICAgICAgICAgICAgICAgICBTdGF0dXM9ImdwdS1taXNzaW5nIiwKICAgICAgICAgICAgICAgICAgICBIZWFsdGh5PUZhbHNlLAogICAgICAgICAgICAgICAgICAgIE1lc3NhZ2U9IiVkIG9mICVkIEFNRCBHUFVzIG9uIHRoZSBQQ0kgYnVzIChubyBhbWQtc21pIG9yIHJvY20tc21pIHRvIHJlYWQgdGhlbSkiCiAgICAgICAgICAgICAgICAgICAgJSAob25fYnVzLCBleHBlY3RlZCksCiAgICAgICAgICAgICAgICApCiAgICAgICAgICAgIF0KICAgICAgICAjIG5vdGhpbmcgY2FuIHJlYWQgdGhlIEdQVXM6IHJlcG9ydGVkIChmYXVsdHMgYWxlcnQpLCBub3QgcmVwYWlyZWQgKGEgbmV3IFZNIGZyb20gdGhlCiAgICAgICAgIyBzYW1lIGltYWdlIHdvdWxkIGhhdmUgbm8gdG9vbCBlaXRoZXIpCiAgICAgICAgcmV0dXJuIFsKICAgICAgICAgICAgZGljdCgKICAgICAgICAgICAgICAgIGVtcHR5LAogICAgICAgICAgICAgICAgR3B1SW5kZXg9Tm9uZSwKICAgICAgICAgICAgICAgIFN0YXR1cz0idG9vbC1taXNzaW5nIiwKICAgICAgICAgICAgICAgIEhlYWx0aHk9VHJ1ZSwKICAgICAgICAgICAgICAgIE1lc3NhZ2U9Im5vIGFtZC1zbWkgb3Igcm9jbS1zbWkgb24gUEFUSCBvciBpbiAlcy9iaW46IHVzZSBhbiBpbWFnZSB3aXRoIFJPQ20gKCVkIG9mICVkIEFNRCBHUFVzIG9uIHRoZSBQQ0kgYnVzKSIKICAgICAgICAgICAgICAgICUgKFJPQ01fRElSLCBvbl9idXMsIGV4cGVjdGVkKSwKICAgICAgICAgICAgKQogICAgICAgIF0KICAgIGlmIG5hbWUgPT0gImFtZC1zbWkiOgogICAgICAgIGdwdXMsIGVycm9yID0gYW1kX3NtaV9yb3dzKGVtcHR5LCB0b29sKQogICAgICAgICMgYW1kLXNtaSBicm9rZW4gaW4gdGhlIGltYWdlIChhIFB5dGhvbiBkZXBlbmRlbmN5LCBhIGxpYnJhcnkgdGhhdCBkb2VzIG5vdCBtYXRjaCB0aGUKICAgICAgICAjIGRyaXZlcikgd2hpbGUgcm9jbS1zbWkgc3RpbGwgcmVhZHMgdGhlIEdQVXM6IG5vdCBhIEdQVSBmYXVsdCwgbm8gcmVwYWlyCiAgICAgICAgZmFsbGJhY2sgPSBmaW5kX3Rvb2woInJvY20tc21pIikgaWYgbm90IGdwdXMgZWxzZSBOb25lCiAgICAgICAgaWYgZmFsbGJhY2sgaXMgbm90IE5vbmU6CiAgICAgICAgICAgIGFsdCwgYWx0X2Vycm9yID0gcm9jbV9zbWlfcm93cyhlbXB0eSwgZmFsbGJhY2spCiAgICAgICAgICAgIGlmIGFsdDoKICAgICAgICAgICAgICAgIGdwdXMsIG5hbWUgPSBhbHQsICJyb2NtLXNtaSIKICAgICAgICAgICAgZWxzZToKICAgICAgICAgICAgICAgIGVycm9yID0gIiVzOyByb2NtLXNtaTogJXMiICUgKGVycm9yIG9yICJhbWQtc21pIHNob3dzIG5vIEdQVSIsIGFsdF9lcnJvciBvciAibm8gR1BVIikKICAgIGVsc2U6CiAgICAgICAgZ3B1cywgZXJyb3IgPSByb2NtX3NtaV9yb3dzKGVtcHR5LCB0b29sKQogICAgaWYgbm90IGdwdXM6CiAgICAgICAgcmV0dXJuIFsKICAgICAgICAgICAgZGljdCgKICAgICAgICAgICAgICAgIGVtcHR5LAogICAgICAgICAgICAgICAgR3B1SW5kZXg9Tm9uZSwKICAgICAgICAgICAgICAgIFN0YXR1cz1uYW1lICsgIi1mYWlsZWQiIGlmIGVycm9yIGVsc2UgIm5vLWdwdSIsCiAgICAgICAgICAgICAgICBIZWFsdGh5PUZhbHNlLAogICAgICAgICAgICAgICAgTWVzc2FnZT0oZXJyb3Igb3IgIiVzIHNob3dzIG5vIEdQVSIgJSBuYW1lKVs6NTAwXSwKICAgICAgICAgICAgKQogICAgICAgIF0KICAgIG1pc3NpbmcgPSAiIgogICAgaWYgbGVuKGdwdXMpIDwgZXhwZWN0ZWQ6CiAgICAgICAgbWlzc2luZyA9ICIlcyBzaG93cyAlZCBvZiAlZCBHUFVzIiAlIChuYW1lLCBsZW4oZ3B1cyksIGV4cGVjdGVkKQogICAgZWxpZiBvbl9idXMgPCBleHBlY3RlZDoKICAgICAgICBtaXNzaW5nID0gIiVkIG9mICVkIEFNRCBHUFVzIG9uIHRoZSBQQ0kgYnVzIiAlIChvbl9idXMsIGV4cGVjdGVkKQogICAgZm9yIHIgaW4gZ3B1czoKICAgICAgICByLnVwZGF0ZSgKICAgICAgICAgICAgU3RhdHVzPSJncHUtbWlzc2luZyIgaWYgbWlzc2luZyBlbHNlICJvayIsCiAgICAgICAgICAgIEhlYWx0aHk9bm90IG1pc3NpbmcsCiAgICAgICAgICAgIE1lc3NhZ2U9bWlzc2luZywKICAgICAgICApCiAgICByZXR1cm4gZ3B1cwoKCmRlZiBudmlkaWFfcm93cyhiYXNlLCBleHBlY3RlZCwgc2luY2VfZmlsZSk6CiAgICAiIiJPbmUgcm93IHBlciBHUFUgZnJvbSBudmlkaWEtc21pLCBvciBvbmUgaGVhbHRoIHJvdy4iIiIKICAgIHhpZHMsIHhpZF9jb2RlcyA9IHhpZF9lcnJvcnMoc2luY2VfZmlsZSkKICAgIHJjLCBvdXQsIGVyciA9IHJ1bihbIm52aWRpYS1zbWkiLCAiLS1xdWVyeS1ncHU9IiArIFFVRVJZLCAiLS1mb3JtYXQ9Y3N2LG5vaGVhZGVyLG5vdW5pdHMiXSkKICAgIHJvd3MgPSBbXQogICAgaWYgcmMgPT0gMDoKICAgICAgICBjdWRhID0gY3VkYV92ZXJzaW9uKCkKICAgICAgICBmb3IgbGluZSBpbiBvdXQuc3BsaXRsaW5lcygpOgogICAgICAgICAgICBmID0gW2Muc3RyaXAoKSBmb3IgYyBpbiBsaW5lLnNwbGl0KCIsIildCiAgICAgICAgICAgIGlmIGxlbihmKSAhPSAxMToKICAgICAgICAgICAgICAgIGNvbnRpbnVlCiAgICAgICAgICAgIHJvd3MuYXBwZW5kKAogICAgICAgICAgICAgICAgZGljdCgKICAgICAgICAgICAgICAgICAgICBiYXNlLAogICAgICAgICAgICAgICAgICAgIEdwdUluZGV4PWludGVnZXIoZlsxXSksCiAgICAgICAgICAgICAgICAgICAgR3B1VXVpZD1mWzJdLAogICAgICAgICAgICAgICAgICAgIEdwdU5hbWU9ZlszXSwKICAgICAgICAgICAgICAgICAgICBVdGlsaXphdGlvblBlcmNlbnQ9bnVtKGZbNF0pLAogICAgICAgICAgICAgICAgICAgIE1lbW9yeVVzZWRNaUI9bnVtKGZbNV0pLAogICAgICAgICAgICAgICAgICAgIE1lbW9yeVRvdGFsTWlCPW51bShmWzZdKSwKICAgICAgICAgICAgICAgICAgICBUZW1wZXJhdHVyZUM9bnVtKGZbN10pLAogICAgICAgICAgICAgICAgICAgIFBvd2VyRHJhd1c9bnVtKGZbOF0pLAogICAgICAgICAgICAgICAgICAgIEVjY1VuY29ycmVjdGVkPWludGVnZXIoZls5XSksCiAgICAgICAgICAgICAgICAgICAgWGlkRXJyb3JzPXhpZHMsCiAgICAgICAgICAgICAgICAgICAgWGlkQ29kZXM9eGlkX2NvZGVzLAogICAgICAgICAgICAgICAgICAgIERyaXZlclZlcnNpb249ZlsxMF0sCiAgICAgICAgICAgICAgICAgICAgQ3VkYVZlcnNpb249Y3VkYSwKICAgICAgICAgICAgICAgICAgICBTdGF0dXM9Im9rIiwKICAgICAgICAgICAgICAgICAgICBIZWFsdGh5PVRydWUsCiAgICAgICAgICAgICAgICAgICAgTWVzc2FnZT0iIiwKICAgICAgICAgICAgICAgICkKICAgICAgICAgICAgKQogICAgaWYgcmMgIT0gMCBvciBub3Qgcm93czoKICAgICAgICBtc2cgPSAoZXJyIG9yIG91dCkuc3RyaXAoKS5zcGxpdGxpbmVzKCkKICAgICAgICByb3dzID0gWwogICAgICAgICAgICBkaWN0KAogICAgICAgICAgICAgICAgYmFzZSwKICAgICAgICAgICAgICAgIEdwdUluZGV4PU5vbmUsCiAgICAgICAgICAgICAgICBTdGF0dXM9Im52aWRpYS1zbWktZmFpbGVkIiBpZiByYyAhPSAwIGVsc2UgIm5vLWdwdSIsCiAgICAgICAgICAgICAgICBIZWFsdGh5PUZhbHNlLAogICAgICAgICAgICAgICAgWGlkRXJyb3JzPXhpZHMsCiAgICAgICAgICAgICAgICBYaWRDb2Rlcz14aWRfY29kZXMsCiAgICAgICAgICAgICAgICBNZXNzYWdlPShtc2dbMF0gaWYgbXNnIGVsc2UgIm52aWRpYS1zbWkgZXhpdGVkICVkIiAlIHJjKVs6NTAwXSwKICAgICAgICAgICAgKQogICAgICAgIF0KICAgIGVsaWYgbGVuKHJvd3MpIDwgZXhwZWN0ZWQ6CiAgICAgICAgZm9yIHIgaW4gcm93czoKICAgICAgICAgICAgclsiU3RhdHVzIl0gPSAiZ3B1LW1pc3NpbmciCiAgICAgICAgICAgIHJbIkhlYWx0aHkiXSA9IEZhbHNlCiAgICAgICAgICAgIHJbIk1lc3NhZ2UiXSA9ICJudmlkaWEtc21pIHNob3dzICVkIG9mICVkIEdQVXMiICUgKGxlbihyb3dzKSwgZXhwZWN0ZWQpCiAgICByZXR1cm4gcm93cwoKCmRlZiBjb2xsZWN0KGV4cGVjdGVkLCB2ZW5kb3I9Im52aWRpYSIpOgogICAgdCA9IG5vdygpCiAgICBzdGFtcCA9IHQuc3RyZnRpbWUoIiVZLSVtLSVkVCVIOiVNOiVTWiIpCiAgICBvcy5tYWtlZGlycyhMT0dfRElSLCBleGlzdF9vaz1UcnVlKQogICAgb3MubWFrZWRpcnMoU1RBVEVfRElSLCBleGlzdF9vaz1UcnVlKQogICAgbWV0YSA9IGltZHMoKQogICAgYmFzZSA9IHsKICAgICAgICAiVGltZUdlbmVyYXRlZCI6IHN0YW1wLAogICAgICAgICJDb21wdXRlciI6IHNvY2tldC5nZXRob3N0bmFtZSgpLAogICAgICAgICJWbUlkIjogbWV0YS5nZXQoInZtSWQiLCAiIiksCiAgICAgICAgIlByaW9yaXR5IjogbWV0YS5nZXQoInByaW9yaXR5IiwgIiIpIG9yICJSZWd1bGFyIiwKICAgICAgICAiRXhwZWN0ZWRHcHVzIjogZXhwZWN0ZWQsCiAgICB9CiAgICBzaW5jZV9maWxlID0gb3MucGF0aC5qb2luKFNUQVRFX0RJUiwgInhpZC1zaW5jZSIpCiAgICBpZiB2ZW5kb3IgPT0gImFtZCI6CiAgICAgICAgcm93cyA9IGFtZF9yb3dzKGJhc2UsIGV4cGVjdGVkKQogICAgZWxzZToKICAgICAgICByb3dzID0gbnZpZGlhX3Jvd3MoYmFzZSwgZXhwZWN0ZWQsIHNpbmNlX2ZpbGUpCiAgICBwYXRoID0gb3MucGF0aC5qb2luKExPR19ESVIsICJncHUtJXMuanNvbiIgJSB0LnN0cmZ0aW1lKCIlWSVtJWQiKSkKICAgIHdpdGggb3BlbihwYXRoLCAiYSIpIGFzIGY6CiAgICAgICAgZm9yIHIgaW4gcm93czoKICAgICAgICAgICAgZi53cml0ZShqc29uLmR1bXBzKHIsIHNvcnRfa2V5cz1UcnVlLCBzZXBhcmF0b3JzPSgiLCIsICI6IikpICsgIlxuIikKICAgIGhlYWx0aHkgPSBhbGwoclsiSGVhbHRoeSJdIGZvciByIGluIHJvd3MpCiAgICBzdGF0dXMgPSB7InRpbWUiOiBzdGFtcCwgImhlYWx0aHkiOiBoZWFsdGh5LCAic3RhdHVzIjogcm93c1swXVsiU3RhdHVzIl19CiAgICB0bXAgPSBvcy5wYXRoLmpvaW4oU1RBVEVfRElSLCAiaGVhbHRoLmpzb24udG1wIikKICAgIHdpdGggb3Blbih0bXAsICJ3IikgYXMgZjoKICAgICAgICBqc29uLmR1bXAoc3RhdHVzLCBmKQogICAgb3MucmVwbGFjZSh0bXAsIG9zLnBhdGguam9pbihTVEFURV9ESVIsICJoZWFsdGguanNvbiIpKQogICAgaWYgdmVuZG9yICE9ICJhbWQiOgogICAgICAgIHdpdGggb3BlbihzaW5jZV9maWxlLCAidyIpIGFzIGY6CiAgICAgICAgICAgIGYud3JpdGUodC5zdHJmdGltZSgiJVktJW0tJWQgJUg6JU06JVMgVVRDIikpCiAgICAjIHRoZSBhZ2VudCByZWFkcyBuZXcgbGluZXM7IGZpbGVzIG9sZGVyIHRoYW4gS0VFUF9EQVlTIGFyZSBnb25lCiAgICBjdXRvZmYgPSAodCAtIGRhdGV0aW1lLnRpbWVkZWx0YShkYXlzPUtFRVBfREFZUykpLnN0cmZ0aW1lKCIlWSVtJWQiKQogICAgZm9yIG9sZCBpbiBnbG9iLmdsb2Iob3MucGF0aC5qb2luKExPR19ESVIsICJncHUtKi5qc29uIikpOgogICAgICAgIGRheSA9IG9zLnBhdGguYmFzZW5hbWUob2xkKVs0OjEyXQogICAgICAgIGlmIGRheS5pc2RpZ2l0KCkgYW5kIGRheSA8IGN1dG9mZjoKICAgICAgICAgICAgb3MucmVtb3ZlKG9sZCkKICAgIHJldHVybiAwIGlmIGhlYWx0aHkgZWxzZSAxCgoKZGVmIGhlYWx0aCgpOgogICAgIiIiKEhUVFAgc3RhdHVzLCByaWNoIGhlYWx0aCBzdGF0ZSkgZnJvbSB0aGUgbGFzdCBzYW1wbGU7IHN0YWxlIGFmdGVyIDUgbWludXRlcy4iIiIKICAgIHRyeToKICAgICAgICB3aXRoIG9wZW4ob3MucGF0aC5qb2luKFNUQVRFX0RJUiwgImhlYWx0aC5qc29uIikpIGFzIGY6CiAgICAgICAgICAgIHMgPSBqc29uLmxvYWQoZikKICAgICAgICBhdCA9IGRhdGV0aW1lLmRhdGV0aW1lLnN0cnB0aW1lKHNbInRpbWUiXSwgIiVZLSVtLSVkVCVIOiVNOiVTWiIpLnJlcGxhY2UoCiAgICAgICAgICAgIHR6aW5mbz1kYXRldGltZS50aW1lem9uZS51dGMKICAgICAgICApCiAgICAgICAgZnJlc2ggPSAobm93KCkgLSBhdCkudG90YWxfc2Vjb25kcygpIDwgMzAwCiAgICAgICAgaWYgcy5nZXQoImhlYWx0aHkiKSBhbmQgZnJlc2g6CiAgICAgICAgICAgIHJldHVybiAyMDAsICJIZWFsdGh5IgogICAgZXhjZXB0IChPU0Vycm9yLCBWYWx1ZUVycm9yLCBLZXlFcnJvcik6CiAgICAgICAgcGFzcwogICAgcmV0dXJuIDUwMywgIlVuaGVhbHRoeSIKCgpjbGFzcyBIYW5kbGVyKGh0dHAuc2VydmVyLkJhc2VIVFRQUmVxdWVzdEhhbmRsZXIpOgogICAgZGVmIGRvX0dFVChzZWxmKToKICAgICAgICBjb2RlLCBzdGF0ZSA9IGhlYWx0aCgpCiAgICAgICAgYm9keSA9IGpzb24uZHVtcHMoeyJBcHBsaWNhdGlvbkhlYWx0aFN0YXRlIjogc3RhdGV9KS5lbmNvZGUoKQogICAgICAgIHNlbGYuc2VuZF9yZXNwb25zZShjb2RlKQogICAgICAgIHNlbGYuc2VuZF9oZWFkZXIoIkNvbnRlbnQtVHlwZSIsICJhcHBsaWNhdGlvbi9qc29uIikKICAgICAgICBzZWxmLnNlbmRfaGVhZGVyKCJDb250ZW50LUxlbmd0aCIsIHN0cihsZW4oYm9keSkpKQogICAgICAgIHNlbGYuZW5kX2hlYWRlcnMoKQogICAgICAgIHNlbGYud2ZpbGUud3JpdGUoYm9keSkKCiAgICBkZWYgbG9nX21lc3NhZ2Uoc2VsZiwgKmFyZ3MpOgogICAgICAgIHBhc3MKCgpkZWYgbWFpbihhcmd2KToKICAgIGlmIDIgPD0gbGVuKGFyZ3YpIDw9IDQgYW5kIGFyZ3ZbMV0gPT0gImNvbGxlY3QiOgogICAgICAgIGV4cGVjdGVkID0gaW50KGFyZ3ZbMl0pIGlmIGxlbihhcmd2KSA+IDIgZWxzZSAxCiAgICAgICAgdmVuZG9yID0gYXJndlszXSBpZiBsZW4oYXJndikgPiAzIGVsc2UgIm52aWRpYSIKICAgICAgICBpZiB2ZW5kb3IgaW4gVkVORE9SUzoKICAgICAgICAgICAgcmV0dXJuIGNvbGxlY3QoZXhwZWN0ZWQsIHZlbmRvcikKICAgIGlmIGxlbihhcmd2KSA9PSAzIGFuZCBhcmd2WzFdID09ICJzZXJ2ZSI6CiAgICAgICAgc2VydmVyID0gaHR0cC5zZXJ2ZXIuSFRUUFNlcnZlcigoIjEyNy4wLjAuMSIsIGludChhcmd2WzJdKSksIEhhbmRsZXIpCiAgICAgICAgc2VydmVyLnNlcnZlX2ZvcmV2ZXIoKQogICAgICAgIHJldHVybiAwCiAgICBpZiBsZW4oYXJndikgPT0gMiBhbmQgYXJndlsxXSA9PSAiaGVhbHRoIjoKICAgICAgICBjb2RlLCBzdGF0ZSA9IGhlYWx0aCgpCiAgICAgICAgcHJpbnQoc3RhdGUpCiAgICAgICAgcmV0dXJuIDAgaWYgY29kZSA9PSAyMDAgZWxzZSAxCiAgICBzeXMuc3RkZXJyLndyaXRlKCJ1c2FnZTogZ3B1Zm9ybS1ncHUgY29sbGVjdCBFWFBFQ1RFRF9HUFVTIFtudmlkaWF8YW1kXSB8IHNlcnZlIFBPUlQgfCBoZWFsdGhcbiIpCiAgICByZXR1cm4gMgoKCmlmIF9fbmFtZV9fID09ICJfX21haW5fXyI6CiAgICBzeXMuZXhpdChtYWluKHN5cy5hcmd2KSkKR1BVRk9STV9FT0YKY2htb2QgMDc1NSAvdXNyL2xvY2FsL2xpYi9ncHVmb3JtL2dwdWZvcm0tZ3B1CmNhdCA+IC9ldGMvc3lzdGVtZC9zeXN0ZW0vZ3B1Zm9ybS1ncHUtY29sbGVjdC5zZXJ2aWNlIDw8J0dQVUZPUk1fRU9GJwpbVW5pdF0KRGVzY3JpcHRpb249Z3B1Zm9ybSBHUFUgc2FtcGxlIChudmlkaWEtc21pIHRvIC92YXIvbG9nL2dwdWZvcm0vZ3B1LSouanNvbikKCltTZXJ2aWNlXQpUeXBlPW9uZXNob3QKRXhlY1N0YXJ0PS91c3IvbG9jYWwvbGliL2dwdWZvcm0vZ3B1Zm9ybS1ncHUgY29sbGVjdCAxIG52aWRpYQpTdWNjZXNzRXhpdFN0YXR1cz0xCkdQVUZPUk1fRU9GCmNhdCA+IC9ldGMvc3lzdGVtZC9zeXN0ZW0vZ3B1Zm9ybS1ncHUtY29sbGVjdC50aW1lciA8PCdHUFVGT1JNX0VPRicKW1VuaXRdCkRlc2NyaXB0aW9uPWdwdWZvcm0gR1BVIHNhbXBsZSBldmVyeSBtaW51dGUKCltUaW1lcl0KT25DYWxlbmRhcj0qLSotKiAqOio6MDAKQWNjdXJhY3lTZWM9MXMKCltJbnN0YWxsXQpXYW50ZWRCeT10aW1lcnMudGFyZ2V0CkdQVUZPUk1fRU9GCmNhdCA+IC9ldGMvc3lzdGVtZC9zeXN0ZW0vZ3B1Zm9ybS1ncHUtaGVhbHRoLnNlcnZpY2UgPDwnR1BVRk9STV9FT0YnCltVbml0XQpEZXNjcmlwdGlvbj1ncHVmb3JtIEdQVSBoZWFsdGggZW5kcG9pbnQgKDEyNy4wLjAuMTo4NzExKQpBZnRlcj1uZXR3b3JrLnRhcmdldAoKW1NlcnZpY2VdCkV4ZWNTdGFydD0vdXNyL2xvY2FsL2xpYi9ncHVmb3JtL2dwdWZvcm0tZ3B1IHNlcnZlIDg3MTEKUmVzdGFydD1hbHdheXMKUmVzdGFydFNlYz01CkR5bmFtaWNVc2VyPXllcwpSZWFkT25seVBhdGhzPS8KCltJbnN0YWxsXQpXYW50ZWRCeT1tdWx0aS11c2VyLnRhcmdldApHUFVGT1JNX0VPRgpzeXN0ZW1jdGwgZGFlbW9uLXJlbG9hZApzeXN0ZW1jdGwgZW5hYmxlIC0tbm93IGdwdWZvcm0tZ3B1LWNvbGxlY3QudGltZXIgZ3B1Zm9ybS1ncHUtaGVhbHRoLnNlcnZpY2UK'

// ---------------------------------------------------------------- network
// One VNet, a workload subnet and a private endpoint subnet. Subnets have no default outbound
// access; egress must come from a route the spec does not manage (outbound: none).

resource nsgWorkload 'Microsoft.Network/networkSecurityGroups@2025-05-01' = {
  name: 'nsg-variant-bus-workload'
  location: location
  tags: tags
  properties: {
    // Only the spec's inbound allow rules; Azure's default rules deny all other inbound traffic.
    securityRules: [
      {
        name: 'metrics-from-monitoring'
        properties: {
          priority: 1000
          direction: 'Inbound'
          access: 'Allow'
          protocol: 'Tcp'
          sourcePortRange: '*'
          sourceAddressPrefixes: [
            '10.1.0.0/24'
            '10.2.0.0/24'
          ]
          destinationPortRange: '9100-9102'
          destinationAddressPrefix: '10.70.0.0/24'
        }
      }
    ]
  }
}

resource nsgPrivateEndpoints 'Microsoft.Network/networkSecurityGroups@2025-05-01' = {
  name: 'nsg-variant-bus-private-endpoints'
  location: location
  tags: tags
  properties: {
    securityRules: []
  }
}

resource vnet 'Microsoft.Network/virtualNetworks@2025-05-01' = {
  name: 'vnet-variant-bus'
  location: location
  tags: tags
  properties: {
    addressSpace: {
      addressPrefixes: [
        '10.70.0.0/16'
      ]
    }
    // Subnets inline, so a redeployment never tries to delete them.
    subnets: [
      {
        name: 'snet-workload'
        properties: {
          addressPrefix: '10.70.0.0/24'
          defaultOutboundAccess: false
          networkSecurityGroup: {
            id: nsgWorkload.id
          }
        }
      }
      {
        name: 'snet-private-endpoints'
        properties: {
          addressPrefix: '10.70.1.0/27'
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
  name: 'id-variant-bus'
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

// The queue jobs lives in resource group rg-shared, where this
// resource-group deployment cannot assign roles. Grant the pool's identity (output
// identityPrincipalId) the role Azure Service Bus Data Receiver (4f6d3b9b-027b-4f4c-9142-0e5a2a2247e0)
// on that queue, scoped to the queue alone.

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
      name: 'premium'
    }
    enableRbacAuthorization: true
    enableSoftDelete: true
    softDeleteRetentionInDays: 90
    enablePurgeProtection: true
    enabledForDeployment: false
    enabledForTemplateDeployment: false
    enabledForDiskEncryption: false
    publicNetworkAccess: 'Enabled'
    networkAcls: {
      bypass: 'AzureServices'
      defaultAction: 'Deny'
      ipRules: []
      virtualNetworkRules: []
    }
  }
}

// Customer-managed key for the disks: rotated yearly, each version expires after two years.
resource cmkKey 'Microsoft.KeyVault/vaults/keys@2025-05-01' = {
  parent: vault
  name: 'disk-cmk'
  tags: tags
  properties: {
    kty: 'RSA-HSM'
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
  name: 'des-variant-bus'
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
// Flexible orchestration, Standard_NC8as_T4_v3, image ubuntu-22.04. No public IPs on the instances.

resource vmss 'Microsoft.Compute/virtualMachineScaleSets@2025-11-01' = {
  // checkov:skip=CKV_AZURE_95: checkov fails every Flexible scale set here; automatic OS image upgrades would also swap the image under the GPU driver and CUDA stack. Roll out a new image by redeploying after testing the driver
  name: 'vmss-variant-bus'
  location: location
  tags: tags
  sku: {
    name: 'Standard_NC8as_T4_v3'
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
    priorityMixPolicy: {
      baseRegularPriorityCount: 0
      regularPriorityPercentageAboveBase: 50
    }
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
      priority: 'Spot'
      evictionPolicy: 'Delete'
      billingProfile: {
        maxPrice: json('0.35')
      }
      osProfile: {
        computerNamePrefix: 'variant-bus'
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
        dataDisks: [
          {
            lun: 0
            createOption: 'Empty'
            diskSizeGB: 64
            caching: 'ReadOnly'
            managedDisk: {
              storageAccountType: 'Premium_LRS'
              diskEncryptionSet: {
                id: des.id
              }
            }
            deleteOption: 'Delete'
          }
          {
            lun: 1
            createOption: 'Empty'
            diskSizeGB: 128
            caching: 'None'
            managedDisk: {
              storageAccountType: 'StandardSSD_LRS'
              diskEncryptionSet: {
                id: des.id
              }
            }
            deleteOption: 'Delete'
          }
        ]
      }
      securityProfile: {
        encryptionAtHost: true
        // Explicit: Trusted Launch by default would turn Secure Boot on under the GPU driver.
        securityType: 'TrustedLaunch'
        uefiSettings: {
          // Secure Boot would reject the driver's unsigned kernel modules.
          secureBootEnabled: false
          vTpmEnabled: true
        }
      }
      networkProfile: {
        networkApiVersion: '2022-11-01'
        networkInterfaceConfigurations: [
          {
            name: 'nic-variant-bus'
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
            // Application health: automatic repairs replaces instances that stay unhealthy.
            name: 'HealthExtension'
            properties: {
              publisher: 'Microsoft.ManagedServices'
              type: 'ApplicationHealthLinux'
              typeHandlerVersion: '2.0'
              autoUpgradeMinorVersion: true
              enableAutomaticUpgrade: true
              settings: {
                protocol: 'tcp'
                port: 9000
                intervalInSeconds: 5
                numberOfProbes: 1
              }
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
// The existing Service Bus namespace and queue the pool works from.
resource sbNamespace 'Microsoft.ServiceBus/namespaces@2024-01-01' existing = {
  name: 'sb-shared-prod'
  scope: resourceGroup('rg-shared')
}

resource sbQueue 'Microsoft.ServiceBus/namespaces/queues@2024-01-01' existing = {
  parent: sbNamespace
  name: 'jobs'
}

// Profiles: the default first, then each recurring profile. A recurring profile has no end;
// it applies until the next one starts, so every schedule has a start and a restore profile.
resource autoscale 'Microsoft.Insights/autoscaleSettings@2022-10-01' = {
  name: 'as-variant-bus'
  location: location
  tags: tags
  properties: {
    name: 'as-variant-bus'
    enabled: true
    targetResourceUri: vmss.id
    profiles: [
      // Applies whenever no recurring profile has started.
      {
        name: 'default'
        capacity: {
          minimum: '0'
          maximum: '6'
          default: '0'
        }
        rules: [
          // Scale out when the backlog per instance exceeds 10 messages.
          {
            metricTrigger: {
              metricName: 'ActiveMessages'
              metricNamespace: 'Microsoft.ServiceBus/namespaces'
              metricResourceUri: sbNamespace.id
              timeGrain: 'PT1M'
              statistic: 'Average'
              timeWindow: 'PT5M'
              timeAggregation: 'Average'
              operator: 'GreaterThan'
              threshold: 10
              dividePerInstance: true
              dimensions: [
                {
                  DimensionName: 'EntityName'
                  Operator: 'Equals'
                  Values: [
                    'jobs'
                  ]
                }
              ]
            }
            scaleAction: {
              direction: 'Increase'
              type: 'ChangeCount'
              value: '1'
              cooldown: 'PT5M'
            }
          }
          // Scale in below 4 messages per instance: one instance fewer still stays under 10, so it cannot flap.
          {
            metricTrigger: {
              metricName: 'ActiveMessages'
              metricNamespace: 'Microsoft.ServiceBus/namespaces'
              metricResourceUri: sbNamespace.id
              timeGrain: 'PT1M'
              statistic: 'Average'
              timeWindow: 'PT5M'
              timeAggregation: 'Average'
              operator: 'LessThan'
              threshold: 4
              dividePerInstance: true
              dimensions: [
                {
                  DimensionName: 'EntityName'
                  Operator: 'Equals'
                  Values: [
                    'jobs'
                  ]
                }
              ]
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
            'a@example.com'
            'b@example.com'
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
  name: 'log-variant-bus'
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

resource actionGroup 'Microsoft.Insights/actionGroups@2023-01-01' = {
  name: 'ag-variant-bus'
  location: 'global'
  tags: tags
  properties: {
    groupShortName: 'variant-bus'
    enabled: true
    emailReceivers: [
      {
        name: 'email-1'
        emailAddress: 'a@example.com'
        useCommonAlertSchema: true
      }
      {
        name: 'email-2'
        emailAddress: 'b@example.com'
        useCommonAlertSchema: true
      }
    ]
  }
}

// The pool has run at its maximum of 6 instances for an hour: the queue outgrows the pool (raise capacity.max or the quota).
resource alertCapacityAtMax 'Microsoft.Insights/metricAlerts@2018-03-01' = {
  name: 'alert-variant-bus-capacity-at-max'
  location: 'global'
  tags: tags
  properties: {
    description: 'The pool has run at its maximum of 6 instances for an hour: the queue outgrows the pool (raise capacity.max or the quota).'
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
          threshold: 6
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

// More than 60 messages wait in jobs: more than the full pool (6 instances x 10) works through.
resource alertQueueBacklog 'Microsoft.Insights/metricAlerts@2018-03-01' = {
  name: 'alert-variant-bus-queue-backlog'
  location: 'global'
  tags: tags
  properties: {
    description: 'More than 60 messages wait in jobs: more than the full pool (6 instances x 10) works through.'
    severity: 2
    enabled: true
    autoMitigate: true
    scopes: [
      sbNamespace.id
    ]
    evaluationFrequency: 'PT5M'
    windowSize: 'PT30M'
    criteria: {
      'odata.type': 'Microsoft.Azure.Monitor.SingleResourceMultipleMetricCriteria'
      allOf: [
        {
          criterionType: 'StaticThresholdCriterion'
          name: 'ActiveMessages'
          metricNamespace: 'Microsoft.ServiceBus/namespaces'
          metricName: 'ActiveMessages'
          operator: 'GreaterThan'
          threshold: 60
          timeAggregation: 'Average'
          dimensions: [
            {
              name: 'EntityName'
              operator: 'Include'
              values: [
                'jobs'
              ]
            }
          ]
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
  name: 'alert-variant-bus-vm-availability'
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
          description: 'nvidia-smi index (AMD: amd-smi gpu); empty on a health row'
        }
        {
          name: 'GpuUuid'
          type: 'string'
          description: 'GPU UUID'
        }
        {
          name: 'GpuName'
          type: 'string'
          description: 'GPU model as nvidia-smi (AMD: amd-smi market_name) names it'
        }
        {
          name: 'UtilizationPercent'
          type: 'real'
          description: 'utilization.gpu (percent; AMD: gfx_activity)'
        }
        {
          name: 'MemoryUsedMiB'
          type: 'real'
          description: 'memory.used (MiB; AMD: used_vram)'
        }
        {
          name: 'MemoryTotalMiB'
          type: 'real'
          description: 'memory.total (MiB; AMD: total_vram)'
        }
        {
          name: 'TemperatureC'
          type: 'real'
          description: 'temperature.gpu (°C; AMD: hotspot, else edge)'
        }
        {
          name: 'PowerDrawW'
          type: 'real'
          description: 'power.draw (W; AMD: socket_power); empty where the driver does not report it (vGPU, GRID)'
        }
        {
          name: 'EccUncorrected'
          type: 'long'
          description: 'ecc.errors.uncorrected.volatile.total since the driver loaded (AMD: total_uncorrectable_count, amd-smi only); empty without ECC'
        }
        {
          name: 'XidErrors'
          type: 'long'
          description: 'Xid events since the previous sample (Linux: NVRM lines of the kernel log; Windows: nvlddmkm errors in the System event log); empty on AMD'
        }
        {
          name: 'XidCodes'
          type: 'string'
          description: 'Distinct Xid codes, e.g. 79,48'
        }
        {
          name: 'DriverVersion'
          type: 'string'
          description: 'NVIDIA driver version (AMD: amdgpu driver version)'
        }
        {
          name: 'CudaVersion'
          type: 'string'
          description: 'CUDA version the driver supports (AMD: the ROCm release installed, /opt/rocm/.info/version)'
        }
        {
          name: 'Status'
          type: 'string'
          description: 'ok, gpu-missing, nvidia-smi-failed, amd-smi-failed, rocm-smi-failed, no-gpu or tool-missing (AMD image without amd-smi/rocm-smi)'
        }
        {
          name: 'Healthy'
          type: 'boolean'
          description: 'What the health probe answers: false when the VM\'s GPUs are missing or the driver fails (repaired); true on tool-missing (reported, not repaired)'
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
  name: 'dce-variant-bus'
  location: location
  tags: tags
  kind: 'Linux'
  properties: {
    description: 'Data collection endpoint of the GPU telemetry of variant-bus.'
    networkAcls: {
      publicNetworkAccess: 'Enabled'
    }
  }
}

resource gpuDcr 'Microsoft.Insights/dataCollectionRules@2023-03-11' = {
  name: 'dcr-variant-bus-gpu'
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
    description: 'Every VM of the scale set sends GPU telemetry through dcr-variant-bus-gpu.'
    dataCollectionRuleId: gpuDcr.id
  }
}

// Instances above the active autoscale profile's minimum whose GPUs averaged under 10% for 60 minutes at $0.752/h each (pay-as-you-go list price in eastus): the pool is not scaling in. Check the scale-in rule (queue threshold, cooldown) and the schedule's min.
resource gpuAlertIdle 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-variant-bus-gpu-idle'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'variant-bus: idle GPUs above the minimum'
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
          query: 'GpuTelemetry_CL\n| where Status == "ok"\n| summarize AvgUtilization = avg(UtilizationPercent) by Computer\n| summarize Instances = count(), IdleInstances = countif(AvgUtilization < 10)\n| extend MinuteOfWeek = (toint(dayofweek(now()) / 1d) + 6) % 7 * 1440 + hourofday(now()) * 60 + datetime_part("minute", now())\n| extend ProfileMin = 0\n| extend IdleAboveMin = max_of(0, min_of(IdleInstances, Instances - ProfileMin))\n| extend IdleCostPerHour = round(IdleAboveMin * 0.752, 2)'
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
        'Email.Subject': 'variant-bus: \${data.alertContext.condition.allOf[0].metricValue} idle GPU instance(s) above the autoscale minimum, $0.752/h each (\${data.essentials.monitorCondition})'
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
  name: 'alert-variant-bus-gpu-vram'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'variant-bus: VRAM pressure'
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
        'Email.Subject': 'variant-bus: a GPU at \${data.alertContext.condition.allOf[0].metricValue}% of its VRAM (\${data.essentials.monitorCondition})'
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
  name: 'alert-variant-bus-gpu-faults'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'variant-bus: GPU faults'
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
        actionGroup.id
      ]
      // e-mail subject with the measured value (preview; the common alert schema's paths)
      actionProperties: {
        'Email.Subject': 'variant-bus: GPU fault on a VM, \${data.alertContext.condition.allOf[0].metricValue} faulty sample(s) (\${data.essentials.monitorCondition})'
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
  name: guid(resourceGroup().id, 'variant-bus-gpu-workbook')
  location: location
  tags: tags
  kind: 'shared'
  properties: {
    displayName: 'GPU pool variant-bus'
    category: 'workbook'
    sourceId: workspace.id
    serializedData: '{"version":"Notebook/1.0","items":[{"type":1,"content":{"json":"## GPU pool `variant-bus`\\nSampled once a minute on every VM by the gpuform collector (`nvidia-smi`) into `GpuTelemetry_CL`. Idle: under 10% utilisation; VRAM alert above 90%."}},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where Status == \\"ok\\"\\n| summarize Utilization = avg(UtilizationPercent) by Computer, bin(TimeGenerated, 5m)","size":0,"title":"GPU utilisation per VM (%)","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"timechart"},"customWidth":"50","name":"GPU utilisation per VM (%)"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where Status == \\"ok\\"\\n| summarize MemoryGiB = max(MemoryUsedMiB) / 1024.0 by Computer, bin(TimeGenerated, 5m)","size":0,"title":"GPU memory used per VM (GiB, peak GPU)","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"timechart"},"customWidth":"50","name":"GPU memory used per VM (GiB, peak GPU)"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| summarize Instances = dcount(Computer) by Priority, bin(TimeGenerated, 5m)","size":0,"title":"Instances by priority","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"areachart"},"customWidth":"50","name":"Instances by priority"},{"type":3,"content":{"version":"KqlItem/1.0","query":"AzureMetrics\\n| where MetricName in (\\"ActiveMessages\\", \\"QueueMessageCount\\", \\"ObservedCapacity\\")\\n| summarize Value = avg(Average) by MetricName, bin(TimeGenerated, 5m)","size":0,"title":"Queue length and autoscale capacity","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"timechart"},"customWidth":"50","name":"Queue length and autoscale capacity"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where TimeGenerated > startofmonth(now()) and Status == \\"ok\\"\\n| summarize Utilization = avg(UtilizationPercent) by Computer, bin(TimeGenerated, 1h)\\n| where Utilization < 10\\n| summarize IdleVmHours = count()\\n| extend IdleCostUSD = round(IdleVmHours * 0.752, 2)","size":0,"title":"Idle GPU-hours and their cost this month","timeContext":{"durationMs":2678400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"tiles"},"customWidth":"50","name":"Idle GPU-hours and their cost this month"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where Status != \\"ok\\" or XidErrors > 0 or EccUncorrected > 0\\n| project TimeGenerated, Computer, Status, XidErrors, XidCodes, EccUncorrected, Message\\n| order by TimeGenerated desc","size":0,"title":"GPU faults and health rows","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"table"},"customWidth":"50","name":"GPU faults and health rows"},{"type":3,"content":{"version":"KqlItem/1.0","query":"alertsmanagementresources\\n| where type =~ \\"microsoft.alertsmanagement/alerts\\"\\n| where tostring(properties.essentials.alertRule) contains \\"alert-variant-bus-\\"\\n| project FiredAt = todatetime(properties.essentials.startDateTime), Rule = tostring(properties.essentials.alertRule), Severity = tostring(properties.essentials.severity), State = tostring(properties.essentials.monitorCondition)\\n| order by FiredAt desc","size":0,"title":"Alerts fired","queryType":1,"resourceType":"microsoft.resourcegraph/resources","crossComponentResources":["value::all"],"visualization":"table"},"name":"Alerts fired"}],"isLocked":false,"fallbackResourceIds":[],"$schema":"https://github.com/Microsoft/Application-Insights-Workbooks/blob/master/schema/workbook.json"}'
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
