// GPU pool `variant-standby`, rendered by gpuform from standby-hibernated.yaml.
// Generated file: change the spec and run `gpuform render` instead of editing it.
// Sections: parameters, network, identity, key vault and encryption, compute, autoscale,
// monitoring, outputs. azuredeploy.json is the same deployment as ARM JSON.
targetScope = 'resourceGroup'

metadata name = 'variant-standby'

// ---------------------------------------------------------------- parameters

@description('Region of every resource. main.bicepparam sets the spec\'s region (westeurope).')
param location string = resourceGroup().location

@description('Admin user name of the VMs.')
param adminUsername string = 'azureuser'

@description('SSH public key of the admin user (OpenSSH format). Password sign-in is disabled.')
param sshPublicKey string = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIT6t8MFGDBjrDDzp2JXe3CIMMd6hupoyimypHKIa8Ja ops@example.com'

var tags = {
  'costCenter': 'cc-1'
  'env': 'prod'
  'project': 'p'
  'team': 't'
}

// cloud-init (standby-hibernated.yaml → compute.cloudInit, and the GPU collector of monitoring.gpu: multipart MIME), base64. Not secret: every VM can read it.
var customData = 'IyEvYmluL3NoCiMgZ3B1Zm9ybTogR1BVIGNvbGxlY3RvciAobnZpZGlhLXNtaSBvbmNlIGEgbWludXRlIC0+IC92YXIvbG9nL2dwdWZvcm0vZ3B1LSouanNvbiAtPiBBenVyZSBNb25pdG9yIEFnZW50KQojIGFuZCB0aGUgaGVhbHRoIGVuZHBvaW50IHRoZSBBcHBsaWNhdGlvbiBIZWFsdGggZXh0ZW5zaW9uIHByb2JlcyAoMTI3LjAuMC4xOjg3MTEpLgpzZXQgLWV1Cmluc3RhbGwgLWQgLW0gMDc1NSAvdXNyL2xvY2FsL2xpYi9ncHVmb3JtIC92YXIvbG9nL2dwdWZvcm0KY2F0ID4gL3Vzci9sb2NhbC9saWIvZ3B1Zm9ybS9ncHVmb3JtLWdwdSA8PCdHUFVGT1JNX0VPRicKIyEvdXNyL2Jpbi9weXRob24zCiMgZ3B1Zm9ybSBHUFUgY29sbGVjdG9yIChyZW5kZXJlZCBieSBncHVmb3JtOyBpbnN0YWxsZWQgYnkgY2xvdWQtaW5pdCwgcnVuIGJ5IHN5c3RlbWQpLgojCiMgICBncHVmb3JtLWdwdSBjb2xsZWN0IEVYUEVDVEVEIFtudmlkaWF8YW1kXQojICAgICAgICAgICAgICAgICAgICAgICAgb25jZSBhIG1pbnV0ZSAoZ3B1Zm9ybS1ncHUtY29sbGVjdC50aW1lcik6IG9uZSBKU09OIGxpbmUgcGVyIEdQVSBpbnRvCiMgICAgICAgICAgICAgICAgICAgICAgICAvdmFyL2xvZy9ncHVmb3JtL2dwdS1ZWVlZTU1ERC5qc29uLCByZWFkIGJ5IHRoZSBBenVyZSBNb25pdG9yIEFnZW50CiMgICAgICAgICAgICAgICAgICAgICAgICAoZGF0YSBjb2xsZWN0aW9uIHJ1bGUsIGxvZ0ZpbGVzL2pzb24pIGludG8gdGhlIEdwdVRlbGVtZXRyeV9DTCB0YWJsZTsKIyAgICAgICAgICAgICAgICAgICAgICAgIGEgVk0gd2hvc2UgR1BVIHRvb2wgZmFpbHMsIG9yIHRoYXQgc2hvd3MgZmV3ZXIgR1BVcyB0aGFuIGl0cyBzaXplIGhhcywKIyAgICAgICAgICAgICAgICAgICAgICAgIHdyaXRlcyBvbmUgaGVhbHRoIHJvdyAoU3RhdHVzICE9ICJvayIpIGluc3RlYWQuCiMgICAgICAgICAgICAgICAgICAgICAgICBOVklESUE6IG52aWRpYS1zbWkuIEFNRDogYW1kLXNtaSAoUk9DbSA2Lng7IGJvdGggSlNPTiBzaGFwZXMpLCBlbHNlCiMgICAgICAgICAgICAgICAgICAgICAgICByb2NtLXNtaSAob2xkZXIgaW1hZ2VzKTsgR1BVcyBjb3VudGVkIG9uIHRoZSBQQ0kgYnVzIHRvby4gQW4gQU1EIGltYWdlCiMgICAgICAgICAgICAgICAgICAgICAgICB3aXRob3V0IGVpdGhlciB0b29sIHdyaXRlcyBgdG9vbC1taXNzaW5nYCByb3dzIGFuZCBzdGF5cyBoZWFsdGh5LgojICAgZ3B1Zm9ybS1ncHUgc2VydmUgICAgdGhlIGhlYWx0aCBlbmRwb2ludCB0aGUgQXBwbGljYXRpb24gSGVhbHRoIGV4dGVuc2lvbiBwcm9iZXMKIyAgICAgICAgICAgICAgICAgICAgICAgICgxMjcuMC4wLjEgb25seSk6IDIwMCB7IkFwcGxpY2F0aW9uSGVhbHRoU3RhdGUiOiAiSGVhbHRoeSJ9IHdoaWxlIHRoZQojICAgICAgICAgICAgICAgICAgICAgICAgbGFzdCBzYW1wbGUgaXMgZnJlc2ggYW5kIGhlYWx0aHksIDIwMCAiVW5oZWFsdGh5IiBvdGhlcndpc2UgKHRoZQojICAgICAgICAgICAgICAgICAgICAgICAgZXh0ZW5zaW9uJ3MgcmljaCBzdGF0ZXM6IGEgMnh4IGNhcnJpZXMgdGhlIHN0YXRlOyBhIG5vbi0yeHggYW5zd2VyCiMgICAgICAgICAgICAgICAgICAgICAgICB3b3VsZCByZWFkIGFzIFVua25vd24sIG5vdCBVbmhlYWx0aHkpLgojCiMgUHl0aG9uIDMgc3RhbmRhcmQgbGlicmFyeSBvbmx5IChldmVyeSBVYnVudHUgaW1hZ2UgaGFzIHB5dGhvbjM6IGNsb3VkLWluaXQgcnVucyBvbiBpdCkuCiMgRW52aXJvbm1lbnQgKHRlc3RzKTogR1BVRk9STV9HUFVfTE9HX0RJUiwgR1BVRk9STV9HUFVfU1RBVEVfRElSLCBHUFVGT1JNX0lNRFNfRklMRSwgR1BVRk9STV9KT0JTX0ZJTEUsCiMgR1BVRk9STV9OT1cgKElTTyA4NjAxIFVUQyksIEdQVUZPUk1fUENJX0RJUiwgR1BVRk9STV9ST0NNX0RJUi4KaW1wb3J0IGRhdGV0aW1lCmltcG9ydCBnbG9iCmltcG9ydCBodHRwLnNlcnZlcgppbXBvcnQganNvbgppbXBvcnQgb3MKaW1wb3J0IHJlCmltcG9ydCBzb2NrZXQKaW1wb3J0IHN1YnByb2Nlc3MKaW1wb3J0IHN5cwppbXBvcnQgdXJsbGliLnJlcXVlc3QKClFVRVJZID0gKAogICAgInRpbWVzdGFtcCxpbmRleCx1dWlkLG5hbWUsdXRpbGl6YXRpb24uZ3B1LG1lbW9yeS51c2VkLG1lbW9yeS50b3RhbCx0ZW1wZXJhdHVyZS5ncHUsIgogICAgInBvd2VyLmRyYXcsZWNjLmVycm9ycy51bmNvcnJlY3RlZC52b2xhdGlsZS50b3RhbCxkcml2ZXJfdmVyc2lvbiIKKQpMT0dfRElSID0gb3MuZW52aXJvbi5nZXQoIkdQVUZPUk1fR1BVX0xPR19ESVIiLCAiL3Zhci9sb2cvZ3B1Zm9ybSIpClNUQVRFX0RJUiA9IG9zLmVudmlyb24uZ2V0KCJHUFVGT1JNX0dQVV9TVEFURV9ESVIiLCAiL3J1bi9ncHVmb3JtIikKIyBUaGUgd29ya2xvYWQgKG9yIHdoYXRldmVyIHN1cGVydmlzZXMgaXQpIG1heSB3cml0ZSB0aGUgbnVtYmVyIG9mIGpvYnMgaXQgcnVucyBoZXJlLCBvbmUgaW50ZWdlci4KSk9CU19GSUxFID0gb3MuZW52aXJvbi5nZXQoIkdQVUZPUk1fSk9CU19GSUxFIiwgIi9ydW4vZ3B1Zm9ybS9qb2JzIikKS0VFUF9EQVlTID0gMgpYSUQgPSByZS5jb21waWxlKHIiTlZSTTogWGlkIFwoW14pXSpcKTogKFxkKykiKQoKCmRlZiBub3coKToKICAgIGZpeGVkID0gb3MuZW52aXJvbi5nZXQoIkdQVUZPUk1fTk9XIikKICAgIGlmIGZpeGVkOgogICAgICAgIHJldHVybiBkYXRldGltZS5kYXRldGltZS5zdHJwdGltZShmaXhlZCwgIiVZLSVtLSVkVCVIOiVNOiVTWiIpLnJlcGxhY2UoCiAgICAgICAgICAgIHR6aW5mbz1kYXRldGltZS50aW1lem9uZS51dGMKICAgICAgICApCiAgICByZXR1cm4gZGF0ZXRpbWUuZGF0ZXRpbWUubm93KGRhdGV0aW1lLnRpbWV6b25lLnV0YykucmVwbGFjZShtaWNyb3NlY29uZD0wKQoKCmRlZiBydW4oY21kKToKICAgIHRyeToKICAgICAgICBwID0gc3VicHJvY2Vzcy5ydW4oY21kLCBjYXB0dXJlX291dHB1dD1UcnVlLCB0ZXh0PVRydWUsIHRpbWVvdXQ9MzApCiAgICAgICAgcmV0dXJuIHAucmV0dXJuY29kZSwgcC5zdGRvdXQsIHAuc3RkZXJyCiAgICBleGNlcHQgKE9TRXJyb3IsIHN1YnByb2Nlc3MuVGltZW91dEV4cGlyZWQpIGFzIGU6CiAgICAgICAgcmV0dXJuIDEyNywgIiIsIHN0cihlKQoKCmRlZiBudW0odik6CiAgICAiIiJBIG51bWJlciBmcm9tIG52aWRpYS1zbWkncyBDU1YsIG9yIE5vbmUgZm9yIFtOL0FdLCBbTm90IFN1cHBvcnRlZF0sIFtVbmtub3duIEVycm9yXS4iIiIKICAgIHYgPSB2LnN0cmlwKCkKICAgIHRyeToKICAgICAgICByZXR1cm4gZmxvYXQodikKICAgIGV4Y2VwdCBWYWx1ZUVycm9yOgogICAgICAgIHJldHVybiBOb25lCgoKZGVmIGludGVnZXIodik6CiAgICBuID0gbnVtKHYpCiAgICByZXR1cm4gTm9uZSBpZiBuIGlzIE5vbmUgZWxzZSBpbnQobikKCgpkZWYgaW1kcygpOgogICAgIiIiUHJpb3JpdHkgKFNwb3QvUmVndWxhcikgYW5kIFZNIGlkIGZyb20gdGhlIGluc3RhbmNlIG1ldGFkYXRhIHNlcnZpY2UsIGNhY2hlZCBwZXIgYm9vdC4iIiIKICAgIGNhY2hlID0gb3MucGF0aC5qb2luKFNUQVRFX0RJUiwgImltZHMuanNvbiIpCiAgICBzcmMgPSBvcy5lbnZpcm9uLmdldCgiR1BVRk9STV9JTURTX0ZJTEUiKQogICAgdHJ5OgogICAgICAgIGlmIHNyYzoKICAgICAgICAgICAgd2l0aCBvcGVuKHNyYykgYXMgZjoKICAgICAgICAgICAgICAgIHJldHVybiBqc29uLmxvYWQoZikKICAgICAgICB3aXRoIG9wZW4oY2FjaGUpIGFzIGY6CiAgICAgICAgICAgIHJldHVybiBqc29uLmxvYWQoZikKICAgIGV4Y2VwdCAoT1NFcnJvciwgVmFsdWVFcnJvcik6CiAgICAgICAgcGFzcwogICAgaWYgc3JjOgogICAgICAgIHJldHVybiB7fQogICAgdHJ5OgogICAgICAgIHJlcSA9IHVybGxpYi5yZXF1ZXN0LlJlcXVlc3QoCiAgICAgICAgICAgICJodHRwOi8vMTY5LjI1NC4xNjkuMjU0L21ldGFkYXRhL2luc3RhbmNlL2NvbXB1dGU/YXBpLXZlcnNpb249MjAyMS0wMi0wMSIsCiAgICAgICAgICAgIGhlYWRlcnM9eyJNZXRhZGF0YSI6ICJ0cnVlIn0sCiAgICAgICAgKQogICAgICAgIHdpdGggdXJsbGliLnJlcXVlc3QudXJsb3BlbihyZXEsIHRpbWVvdXQ9MikgYXMgcjoKICAgICAgICAgICAgZGF0YSA9IGpzb24ubG9hZChyKQogICAgICAgIHdpdGggb3BlbihjYWNoZSwgInciKSBhcyBmOgogICAgICAgICAgICBqc29uLmR1bXAoZGF0YSwgZikKICAgICAgICByZXR1cm4gZGF0YQogICAgZXhjZXB0IChPU0Vycm9yLCBWYWx1ZUVycm9yKToKICAgICAgICByZXR1cm4ge30KCgpkZWYgY3VkYV92ZXJzaW9uKCk6CiAgICByYywgb3V0LCBfID0gcnVuKFsibnZpZGlhLXNtaSJdKQogICAgbSA9IHJlLnNlYXJjaChyIkNVREEgVmVyc2lvbjpccyooWzAtOS5dKykiLCBvdXQpIGlmIHJjID09IDAgZWxzZSBOb25lCiAgICByZXR1cm4gbS5ncm91cCgxKSBpZiBtIGVsc2UgIiIKCgpkZWYgeGlkX2Vycm9ycyhzaW5jZV9maWxlKToKICAgICIiIlhpZCBldmVudHMgaW4gdGhlIGtlcm5lbCBsb2cgc2luY2UgdGhlIHByZXZpb3VzIHNhbXBsZTogKGNvdW50LCAiNzksNDgiKS4iIiIKICAgIHNpbmNlID0gTm9uZQogICAgdHJ5OgogICAgICAgIHdpdGggb3BlbihzaW5jZV9maWxlKSBhcyBmOgogICAgICAgICAgICBzaW5jZSA9IGYucmVhZCgpLnN0cmlwKCkKICAgIGV4Y2VwdCBPU0Vycm9yOgogICAgICAgIHBhc3MKICAgIGNtZCA9IFsiam91cm5hbGN0bCIsICItayIsICItbyIsICJjYXQiLCAiLS1uby1wYWdlciJdCiAgICBjbWQgKz0gWyItLXNpbmNlIiwgc2luY2VdIGlmIHNpbmNlIGVsc2UgWyItYiJdCiAgICByYywgb3V0LCBfID0gcnVuKGNtZCkKICAgIGNvZGVzID0gWElELmZpbmRhbGwob3V0KSBpZiByYyA9PSAwIGVsc2UgW10KICAgIHJldHVybiBsZW4oY29kZXMpLCAiLCIuam9pbihzb3J0ZWQoc2V0KGNvZGVzKSwga2V5PWludCkpCgoKIyAtLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tIEFNRCAoUk9DbSkKVkVORE9SUyA9ICgibnZpZGlhIiwgImFtZCIpClBDSV9ESVIgPSBvcy5lbnZpcm9uLmdldCgiR1BVRk9STV9QQ0lfRElSIiwgIi9zeXMvYnVzL3BjaS9kZXZpY2VzIikKUk9DTV9ESVIgPSBvcy5lbnZpcm9uLmdldCgiR1BVRk9STV9ST0NNX0RJUiIsICIvb3B0L3JvY20iKQpBTURfUENJX1ZFTkRPUiA9ICIweDEwMDIiCiMgUENJIGJhc2UgY2xhc3NlcyBvZiBhIEdQVTogMHgwMyBkaXNwbGF5IGNvbnRyb2xsZXIgKFJhZGVvbiBQUk8sIFY3MTApLCAweDEyIHByb2Nlc3NpbmcKIyBhY2NlbGVyYXRvciAoSW5zdGluY3QpOyB0aGUgR1BVcycgSERNSS9EUCBhdWRpbyBmdW5jdGlvbnMgKDB4MDQpIGFyZSBub3QgR1BVcwpHUFVfUENJX0NMQVNTRVMgPSAoIjB4MDMiLCAiMHgxMiIpClJPQ01fU01JX0FSR1MgPSBbCiAgICAiLS1zaG93dXNlIiwgIi0tc2hvd21lbWluZm8iLCAidnJhbSIsICItLXNob3d0ZW1wIiwgIi0tc2hvd3Bvd2VyIiwKICAgICItLXNob3dwcm9kdWN0bmFtZSIsICItLXNob3d1bmlxdWVpZCIsICItLXNob3dkcml2ZXJ2ZXJzaW9uIiwgIi0tanNvbiIsCl0KCgpkZWYgcGNpX2dwdXModmVuZG9yKToKICAgICIiIkdQVXMgb2YgYHZlbmRvcmAgb24gdGhlIFBDSSBidXM6IGNvdW50ZWQgd2l0aG91dCB0aGUgZHJpdmVyIG9yIGFueSB0b29sLiIiIgogICAgbiA9IDAKICAgIGZvciBkZXYgaW4gZ2xvYi5nbG9iKG9zLnBhdGguam9pbihQQ0lfRElSLCAiKiIpKToKICAgICAgICB0cnk6CiAgICAgICAgICAgIHdpdGggb3Blbihvcy5wYXRoLmpvaW4oZGV2LCAidmVuZG9yIikpIGFzIGY6CiAgICAgICAgICAgICAgICB2ID0gZi5yZWFkKCkuc3RyaXAoKS5sb3dlcigpCiAgICAgICAgICAgIHdpdGggb3Blbihvcy5wYXRoLmpvaW4oZGV2LCAiY2xhc3MiKSkgYXMgZjoKICAgICAgICAgICAgICAgIGMgPSBmLnJlYWQoKS5zdHJpcCgpLmxvd2VyKCkKICAgICAgICBleGNlcHQgT1NFcnJvcjoKICAgICAgICAgICAgY29udGludWUKICAgICAgICBpZiB2ID09IHZlbmRvciBhbmQgYy5zdGFydHN3aXRoKEdQVV9QQ0lfQ0xBU1NFUyk6CiAgICAgICAgICAgIG4gKz0gMQogICAgcmV0dXJuIG4KCgpkZWYgZmluZF90b29sKG5hbWUpOgogICAgIiIiYG5hbWVgIG9uIFBBVEgsIGVsc2UgaW4gUk9DbSdzIGJpbiBkaXJlY3RvcnkgKHN5c3RlbWQncyBQQVRIIGhhcyBubyAvb3B0L3JvY20vYmluKS4iIiIKICAgIGZvciBkIGluIG9zLmVudmlyb24uZ2V0KCJQQVRIIiwgIiIpLnNwbGl0KG9zLnBhdGhzZXApICsgW29zLnBhdGguam9pbihST0NNX0RJUiwgImJpbiIpXToKICAgICAgICBwID0gb3MucGF0aC5qb2luKGQsIG5hbWUpCiAgICAgICAgaWYgZCBhbmQgb3MucGF0aC5pc2ZpbGUocCkgYW5kIG9zLmFjY2VzcyhwLCBvcy5YX09LKToKICAgICAgICAgICAgcmV0dXJuIHAKICAgIHJldHVybiBOb25lCgoKZGVmIHJvY21fdmVyc2lvbigpOgogICAgIiIiVGhlIGluc3RhbGxlZCBST0NtIHJlbGVhc2UgKC9vcHQvcm9jbS8uaW5mby92ZXJzaW9uLCBlLmcuIDYuMi4xLTExMiAtPiA2LjIuMSkuIiIiCiAgICB0cnk6CiAgICAgICAgd2l0aCBvcGVuKG9zLnBhdGguam9pbihST0NNX0RJUiwgIi5pbmZvIiwgInZlcnNpb24iKSkgYXMgZjoKICAgICAgICAgICAgcmV0dXJuIGYucmVhZCgpLnN0cmlwKCkuc3BsaXQoIi0iKVswXQogICAgZXhjZXB0IE9TRXJyb3I6CiAgICAgICAgcmV0dXJuICIiCgoKZGVmIGxvYWRfanNvbihvdXQpOgogICAgIiIiVGhlIEpTT04gZG9jdW1lbnQgaW4gYSB0b29sJ3Mgb3V0cHV0LCBvciBOb25lLiBMaW5lcyBiZWZvcmUgaXQgYXJlIHNraXBwZWQsIGFsc28gd2hlbgogICAgdGhleSBob2xkIGJyYWNrZXRzIHRoZW1zZWx2ZXMgKCJbV0FSTklOR10gLi4uIik6IGV2ZXJ5IFsgb3IgeyBpcyB0cmllZCBpbiB0dXJuLiIiIgogICAgZGVjb2RlciA9IGpzb24uSlNPTkRlY29kZXIoKQogICAgZm9yIGksIGNoIGluIGVudW1lcmF0ZShvdXQpOgogICAgICAgIGlmIGNoIG5vdCBpbiAiW3siOgogICAgICAgICAgICBjb250aW51ZQogICAgICAgIHRyeToKICAgICAgICAgICAgZG9jID0gZGVjb2Rlci5yYXdfZGVjb2RlKG91dFtpOl0pWzBdCiAgICAgICAgZXhjZXB0IFZhbHVlRXJyb3I6CiAgICAgICAgICAgIGNvbnRpbnVlCiAgICAgICAgaWYgaXNpbnN0YW5jZShkb2MsIChsaXN0LCBkaWN0KSk6CiAgICAgICAgICAgIHJldHVybiBkb2MKICAgIHJldHVybiBOb25lCgoKZGVmIGFtZF9saXN0KGRhdGEpOgogICAgIiIiYW1kLXNtaSdzIHBlci1HUFUgb2JqZWN0czogYSBsaXN0IChST0NtIDYueCkgb3IgeyJncHVfZGF0YSI6IFsuLi5dfSAobGF0ZXIgcmVsZWFzZXMpLiIiIgogICAgaWYgaXNpbnN0YW5jZShkYXRhLCBkaWN0KToKICAgICAgICBkYXRhID0gZGF0YS5nZXQoImdwdV9kYXRhIikKICAgIGlmIG5vdCBpc2luc3RhbmNlKGRhdGEsIGxpc3QpOgogICAgICAgIHJldHVybiBOb25lCiAgICByZXR1cm4gW2cgZm9yIGcgaW4gZGF0YSBpZiBpc2luc3RhbmNlKGcsIGRpY3QpIGFuZCBpc2luc3RhbmNlKGcuZ2V0KCJncHUiKSwgaW50KV0KCgpkZWYgdmFsdWUodik6CiAgICAiIiJBbiBhbWQtc21pL3JvY20tc21pIGZpZWxkIGFzIGEgbnVtYmVyOiBwbGFpbiAoUk9DbSA2LjApLCB7InZhbHVlIjogLi4sICJ1bml0IjogLi59CiAgICAoNi4xIGFuZCBsYXRlcikgb3IgYSBzdHJpbmc7IE5vbmUgZm9yICJOL0EiIGFuZCBhbnl0aGluZyBlbHNlLiIiIgogICAgaWYgaXNpbnN0YW5jZSh2LCBkaWN0KToKICAgICAgICB2ID0gdi5nZXQoInZhbHVlIikKICAgIGlmIGlzaW5zdGFuY2UodiwgYm9vbCk6CiAgICAgICAgcmV0dXJuIE5vbmUKICAgIGlmIGlzaW5zdGFuY2UodiwgKGludCwgZmxvYXQpKToKICAgICAgICByZXR1cm4gZmxvYXQodikKICAgIGlmIGlzaW5zdGFuY2Uodiwgc3RyKSBhbmQgdi5zdHJpcCgpOgogICAgICAgIHJldHVybiBudW0odi5zcGxpdCgpWzBdKQogICAgcmV0dXJuIE5vbmUKCgpkZWYgcGljayhkLCAqcGF0aHMpOgogICAgIiIiVGhlIGZpcnN0IG9mIGBwYXRoc2AgKGtleSB0dXBsZXMpIHRoYXQgaG9sZHMgYSBudW1iZXIuIiIiCiAgICBmb3IgcGF0aCBpbiBwYXRoczoKICAgICAgICB2ID0gZAogICAgICAgIGZvciBrIGluIHBhdGg6CiAgICAgICAgICAgIHYgPSB2LmdldChrKSBpZiBpc2luc3RhbmNlKHYsIGRpY3QpIGVsc2UgTm9uZQogICAgICAgIG4gPSB2YWx1ZSh2KQogICAgICAgIGlmIG4gaXMgbm90IE5vbmU6CiAgICAgICAgICAgIHJldHVybiBuCiAgICByZXR1cm4gTm9uZQoKCmRlZiB0ZXh0KHYpOgogICAgcmV0dXJuIHYuc3RyaXAoKSBpZiBpc2luc3RhbmNlKHYsIHN0cikgYW5kIHYuc3RyaXAoKSAhPSAiTi9BIiBlbHNlICIiCgoKZGVmIGFtZF9zbWlfcm93cyhiYXNlLCB0b29sKToKICAgICIiIihyb3dzLCBlcnJvciBtZXNzYWdlKTogYW1kLXNtaSBtZXRyaWMvc3RhdGljL2xpc3QgLS1qc29uLCBvbmUgcm93IHBlciBHUFUuIiIiCiAgICByYywgb3V0LCBlcnIgPSBydW4oW3Rvb2wsICJtZXRyaWMiLCAiLS1qc29uIl0pCiAgICBtZXRyaWMgPSBhbWRfbGlzdChsb2FkX2pzb24ob3V0KSkKICAgIGlmIG1ldHJpYyBpcyBOb25lOgogICAgICAgIG1zZyA9IChlcnIgb3Igb3V0KS5zdHJpcCgpLnNwbGl0bGluZXMoKQogICAgICAgIHJldHVybiBbXSwgKG1zZ1swXSBpZiBtc2cgZWxzZSAiYW1kLXNtaSBtZXRyaWMgZXhpdGVkICVkIiAlIHJjKQogICAgc3RhdGljID0ge2dbImdwdSJdOiBnIGZvciBnIGluIGFtZF9saXN0KGxvYWRfanNvbihydW4oW3Rvb2wsICJzdGF0aWMiLCAiLS1qc29uIl0pWzFdKSkgb3IgW119CiAgICBsaXN0ZWQgPSB7Z1siZ3B1Il06IGcgZm9yIGcgaW4gYW1kX2xpc3QobG9hZF9qc29uKHJ1bihbdG9vbCwgImxpc3QiLCAiLS1qc29uIl0pWzFdKSkgb3IgW119CiAgICByb2NtID0gcm9jbV92ZXJzaW9uKCkKICAgIHJvd3MgPSBbXQogICAgZm9yIG0gaW4gc29ydGVkKG1ldHJpYywga2V5PWxhbWJkYSBnOiBnWyJncHUiXSk6CiAgICAgICAgcyA9IHN0YXRpYy5nZXQobVsiZ3B1Il0sIHt9KQogICAgICAgIGRyaXZlciA9IHMuZ2V0KCJkcml2ZXIiKSBpZiBpc2luc3RhbmNlKHMuZ2V0KCJkcml2ZXIiKSwgZGljdCkgZWxzZSB7fQogICAgICAgIGFzaWMgPSBzLmdldCgiYXNpYyIpIGlmIGlzaW5zdGFuY2Uocy5nZXQoImFzaWMiKSwgZGljdCkgZWxzZSB7fQogICAgICAgIGVjYyA9IHBpY2sobSwgKCJlY2MiLCAidG90YWxfdW5jb3JyZWN0YWJsZV9jb3VudCIpLCAoImVjYyIsICJ0b3RhbF91bmNvcnJlY3RhYmxlIikpCiAgICAgICAgcm93cy5hcHBlbmQoCiAgICAgICAgICAgIGRpY3QoCiAgICAgICAgICAgICAgICBiYXNlLAogICAgICAgICAgICAgICAgR3B1SW5kZXg9bVsiZ3B1Il0sCiAgICAgICAgICAgICAgICBHcHVVdWlkPXRleHQobGlzdGVkLmdldChtWyJncHUiXSwge30pLmdldCgidXVpZCIpKSwKICAgICAgICAgICAgICAgIEdwdU5hbWU9dGV4dChhc2ljLmdldCgibWFya2V0X25hbWUiKSksCiAgICAgICAgICAgICAgICBVdGlsaXphdGlvblBlcmNlbnQ9cGljayhtLCAoInVzYWdlIiwgImdmeF9hY3Rpdml0eSIpLCAoInVzYWdlIiwgImdmeF91c2FnZSIpKSwKICAgICAgICAgICAgICAgIE1lbW9yeVVzZWRNaUI9cGljayhtLCAoIm1lbV91c2FnZSIsICJ1c2VkX3ZyYW0iKSksCiAgICAgICAgICAgICAgICBNZW1vcnlUb3RhbE1pQj1waWNrKG0sICgibWVtX3VzYWdlIiwgInRvdGFsX3ZyYW0iKSksCiAgICAgICAgICAgICAgICBUZW1wZXJhdHVyZUM9cGljayhtLCAoInRlbXBlcmF0dXJlIiwgImhvdHNwb3QiKSwgKCJ0ZW1wZXJhdHVyZSIsICJlZGdlIikpLAogICAgICAgICAgICAgICAgUG93ZXJEcmF3Vz1waWNrKAogICAgICAgICAgICAgICAgICAgIG0sCiAgICAgICAgICAgICAgICAgICAgKCJwb3dlciIsICJzb2NrZXRfcG93ZXIiKSwKICAgICAgICAgICAgICAgICAgICAoInBvd2VyIiwgImN1cnJlbnRfc29ja2V0X3Bvd2VyIiksCiAgICAgICAgICAgICAgICAgICAgKCJwb3dlciIsICJhdmVyYWdlX3NvY2tldF9wb3dlciIpLAogICAgICAgICAgICAgICAgICAgICgicG93ZXIiLCAiY3VycmVudF9wb3dlciIpLAogICAgICAgICAgICAgICAgKSwKICAgICAgICAgICAgICAgIEVjY1VuY29ycmVjdGVkPU5vbmUgaWYgZWNjIGlzIE5vbmUgZWxzZSBpbnQoZWNjKSwKICAgICAgICAgICAgICAgIERyaXZlclZlcnNpb249dGV4dChkcml2ZXIuZ2V0KCJ2ZXJzaW9uIikpIG9yIHRleHQoZHJpdmVyLmdldCgiZHJpdmVyX3ZlcnNpb24iKSksCiAgICAgICAgICAgICAgICBDdWRhVmVyc2lvbj1yb2NtLAogICAgICAgICAgICApCiAgICAgICAgKQogICAgcmV0dXJuIHJvd3MsICIiCgoKZGVmIHJvY21fc21pX3Jvd3MoYmFzZSwgdG9vbCk6CiAgICAiIiIocm93cywgZXJyb3IgbWVzc2FnZSk6IHJvY20tc21pIC0tanNvbiAoeyJjYXJkMCI6IHsuLi59LCAic3lzdGVtIjogey4uLn19KS4iIiIKICAgIHJjLCBvdXQsIGVyciA9IHJ1bihbdG9vbF0gKyBST0NNX1NNSV9BUkdTKQogICAgZGF0YSA9IGxvYWRfanNvbihvdXQpCiAgICBjYXJkcyA9IFtdCiAgICBpZiBpc2luc3RhbmNlKGRhdGEsIGRpY3QpOgogICAgICAgIGNhcmRzID0gc29ydGVkKAogICAgICAgICAgICAoaW50KGtbNDpdKSwgdikgZm9yIGssIHYgaW4gZGF0YS5pdGVtcygpCiAgICAgICAgICAgIGlmIGsuc3RhcnRzd2l0aCgiY2FyZCIpIGFuZCBrWzQ6XS5pc2RpZ2l0KCkgYW5kIGlzaW5zdGFuY2UodiwgZGljdCkKICAgICAgICApCiAgICBpZiBub3QgaXNpbnN0YW5jZShkYXRhLCBkaWN0KToKICAgICAgICBtc2cgPSAoZXJyIG9yIG91dCkuc3RyaXAoKS5zcGxpdGxpbmVzKCkKICAgICAgICByZXR1cm4gW10sIChtc2dbMF0gaWYgbXNnIGVsc2UgInJvY20tc21pIGV4aXRlZCAlZCIgJSByYykKICAgIHN5c3RlbSA9IGRhdGEuZ2V0KCJzeXN0ZW0iKSBpZiBpc2luc3RhbmNlKGRhdGEuZ2V0KCJzeXN0ZW0iKSwgZGljdCkgZWxzZSB7fQogICAgcm9jbSA9IHJvY21fdmVyc2lvbigpCiAgICByb3dzID0gW10KICAgIGZvciBpbmRleCwgYyBpbiBjYXJkczoKICAgICAgICB0b3RhbCA9IHBpY2soYywgKCJWUkFNIFRvdGFsIE1lbW9yeSAoQikiLCkpCiAgICAgICAgdXNlZCA9IHBpY2soYywgKCJWUkFNIFRvdGFsIFVzZWQgTWVtb3J5IChCKSIsKSkKICAgICAgICByb3dzLmFwcGVuZCgKICAgICAgICAgICAgZGljdCgKICAgICAgICAgICAgICAgIGJhc2UsCiAgICAgICAgICAgICAgICBHcHVJbmRleD1pbmRleCwKICAgICAgICAgICAgICAgIEdwdVV1aWQ9dGV4dChjLmdldCgiVW5pcXVlIElEIikpLAogICAgICAgICAgICAgICAgR3B1TmFtZT10ZXh0KGMuZ2V0KCJDYXJkIHNlcmllcyIpIG9yIGMuZ2V0KCJDYXJkIFNlcmllcyIpKSwKICAgICAgICAgICAgICAgIFV0aWxpemF0aW9uUGVyY2VudD1waWNrKGMsICgiR1BVIHVzZSAoJSkiLCkpLAogICAgICAgICAgICAgICAgTWVtb3J5VXNlZE1pQj1Ob25lIGlmIHVzZWQgaXMgTm9uZSBlbHNlIHVzZWQgLyAxMDQ4NTc2LAogICAgICAgICAgICAgICAgTWVtb3J5VG90YWxNaUI9Tm9uZSBpZiB0b3RhbCBpcyBOb25lIGVsc2UgdG90YWwgLyAxMDQ4NTc2LAogICAgICAgICAgICAgICAgVGVtcGVyYXR1cmVDPXBpY2soCiAgICAgICAgICAgICAgICAgICAgYywgKCJUZW1wZXJhdHVyZSAoU2Vuc29yIGp1bmN0aW9uKSAoQykiLCksICgiVGVtcGVyYXR1cmUgKFNlbnNvciBlZGdlKSAoQykiLCkKICAgICAgICAgICAgICAgICksCiAgICAgICAgICAgICAgICBQb3dlckRyYXdXPXBpY2soCiAgICAgICAgICAgICAgICAgICAgYywKICAgICAgICAgICAgICAgICAgICAoIkN1cnJlbnQgU29ja2V0IEdyYXBoaWNzIFBhY2thZ2UgUG93ZXIgKFcpIiwpLAogICAgICAgICAgICAgICAgICAgICgiQXZlcmFnZSBHcmFwaGljcyBQYWNrYWdlIFBvd2VyIChXKSIsKSwKICAgICAgICAgICAgICAgICksCiAgICAgICAgICAgICAgICBFY2NVbmNvcnJlY3RlZD1Ob25lLAogICAgICAgICAgICAgICAgRHJpdmVyVmVyc2lvbj10ZXh0KHN5c3RlbS5nZXQoIkRyaXZlciB2ZXJzaW9uIikpLAogICAgICAgICAgICAgICAgQ3VkYVZlcnNpb249cm9jbSwKICAgICAgICAgICAgKQogICAgICAgICkKICAgIHJldHVybiByb3dzLCAiIgoKCmRlZiBhbWRfcm93cyhiYXNlLCBleHBlY3RlZCk6CiAgICAiIiJPbmUgcm93IHBlciBBTUQgR1BVLCBvciBvbmUgaGVhbHRoIHJvdy4gWGlkIGlzIE5WSURJQSdzOiBYaWRFcnJvcnMvWGlkQ29kZXMgc3RheSBlbXB0eS4iIiIKICAgIG9uX2J1cyA9IHBjaV9ncHVzKEFNRF9QQ0lfVkVORE9SKQogICAgZW1wdHkgPSBkaWN0KGJhc2UsIFhpZEVycm9ycz1Ob25lLCBYaWRDb2Rlcz0iIikKICAgIHRvb2wgPSBmaW5kX3Rvb2woImFtZC1zbWkiKQogICAgbmFtZSA9ICJhbWQtc21pIgogICAgaWYgdG9vbCBpcyBOb25lOgogICAgICAgIHRvb2wgPSBmaW5kX3Rvb2woInJvY20tc21pIikKICAgICAgICBuYW1lID0gInJvY20tc21pIgogICAgaWYgdG9vbCBpcyBOb25lOgogICAgICAgIGlmIG9uX2J1cyA8IGV4cGVjdGVkOgogICAgICAgICAgICByZXR1cm4gWwogICAgICAgICAgICAgICAgZGljdCgKICAgICAgICAgICAgICAgICAgICBlbXB0eSwKICAgICAgICAgICAgICAgICAgICBHcHVJbmRleD1Ob25lLAogICAgICAgICAgICAgICAgICAgIFN0YXR1cz0iZ3B1LW1pc3NpbmciLAogICAgICAgICAgICAgICAgICAgIEhlYWx0aHk9RmFsc2UsCiAgICAgICAgICAgICAgICAgICAgTWVzc2FnZT0iJWQgb2YgJWQgQU1EIEdQVXMgb24gdGhlIFBDSSBidXMgKG5vIGFtZC1zbWkgb3Igcm9jbS1zbWkgdG8gcmVhZCB0aGVtKSIKICAgICAgICAgICAgICAgICAgICAlIChvbl9idXMsIGV4cGVjdGVkKSwKICAgICAgICAgICAgICAgICkKICAgICAgICAgICAgXQogICAgICAgICMgbm90aGluZyBjYW4gcmVhZCB0aGUgR1BVczogcmVwb3J0ZWQgKGZhdWx0cyBhbGVydCksIG5vdCByZXBhaXJlZCAoYSBuZXcgVk0gZnJvbSB0aGUKICAgICAgICAjIHNhbWUgaW1hZ2Ugd291bGQgaGF2ZSBubyB0b29sIGVpdGhlcikKICAgICAgICByZXR1cm4gWwogICAgICAgICAgICBkaWN0KAogICAgICAgICAgICAgICAgZW1wdHksCiAgICAgICAgICAgICAgICBHcHVJbmRleD1Ob25lLAogICAgICAgICAgICAgICAgU3RhdHVzPSJ0b29sLW1pc3NpbmciLAogICAgICAgICAgICAgICAgSGVhbHRoeT1UcnVlLAogICAgICAgICAgICAgICAgTWVzc2FnZT0ibm8gYW1kLXNtaSBvciByb2NtLXNtaSBvbiBQQVRIIG9yIGluICVzL2JpbjogdXNlIGFuIGltYWdlIHdpdGggUk9DbSAoJWQgb2YgJWQgQU1EIEdQVXMgb24gdGhlIFBDSSBidXMpIgogICAgICAgICAgICAgICAgJSAoUk9DTV9ESVIsIG9uX2J1cywgZXhwZWN0ZWQpLAogICAgICAgICAgICApCiAgICAgICAgXQogICAgaWYgbmFtZSA9PSAiYW1kLXNtaSI6CiAgICAgICAgZ3B1cywgZXJyb3IgPSBhbWRfc21pX3Jvd3MoZW1wdHksIHRvb2wpCiAgICAgICAgIyBhbWQtc21pIGJyb2tlbiBpbiB0aGUgaW1hZ2UgKGEgUHl0aG9uIGRlcGVuZGVuY3ksIGEgbGlicmFyeSB0aGF0IGRvZXMgbm90IG1hdGNoIHRoZQogICAgICAgICMgZHJpdmVyKSB3aGlsZSByb2NtLXNtaSBzdGlsbCByZWFkcyB0aGUgR1BVczogbm90IGEgR1BVIGZhdWx0LCBubyByZXBhaXIKICAgICAgICBmYWxsYmFjayA9IGZpbmRfdG9vbCgicm9jbS1zbWkiKSBpZiBub3QgZ3B1cyBlbHNlIE5vbmUKICAgICAgICBpZiBmYWxsYmFjayBpcyBub3QgTm9uZToKICAgICAgICAgICAgYWx0LCBhbHRfZXJyb3IgPSByb2NtX3NtaV9yb3dzKGVtcHR5LCBmYWxsYmFjaykKICAgICAgICAgICAgaWYgYWx0OgogICAgICAgICAgICAgICAgZ3B1cywgbmFtZSA9IGFsdCwgInJvY20tc21pIgogICAgICAgICAgICBlbHNlOgogICAgICAgICAgICAgICAgZXJyb3IgPSAiJXM7IHJvY20tc21pOiAlcyIgJSAoZXJyb3Igb3IgImFtZC1zbWkgc2hvd3Mgbm8gR1BVIiwgYWx0X2Vycm9yIG9yICJubyBHUFUiKQogICAgZWxzZToKICAgICAgICBncHVzLCBlcnJvciA9IHJvY21fc21pX3Jvd3MoZW1wdHksIHRvb2wpCiAgICBpZiBub3QgZ3B1czoKICAgICAgICByZXR1cm4gWwogICAgICAgICAgICBkaWN0KAogICAgICAgICAgICAgICAgZW1wdHksCiAgICAgICAgICAgICAgICBHcHVJbmRleD1Ob25lLAogICAgICAgICAgICAgICAgU3RhdHVzPW5hbWUgKyAiLWZhaWxlZCIgaWYgZXJyb3IgZWxzZSAibm8tZ3B1IiwKICAgICAgICAgICAgICAgIEhlYWx0aHk9RmFsc2UsCiAgICAgICAgICAgICAgICBNZXNzYWdlPShlcnJvciBvciAiJXMgc2hvd3Mgbm8gR1BVIiAlIG5hbWUpWzo1MDBdLAogICAgICAgICAgICApCiAgICAgICAgXQogICAgbWlzc2luZyA9ICIiCiAgICBpZiBsZW4oZ3B1cykgPCBleHBlY3RlZDoKICAgICAgICBtaXNzaW5nID0gIiVzIHNob3dzICVkIG9mICVkIEdQVXMiICUgKG5hbWUsIGxlbihncHVzKSwgZXhwZWN0ZWQpCiAgICBlbGlmIG9uX2J1cyA8IGV4cGVjdGVkOgogICAgICAgIG1pc3NpbmcgPSAiJWQgb2YgJWQgQU1EIEdQVXMgb24gdGhlIFBDSSBidXMiICUgKG9uX2J1cywgZXhwZWN0ZWQpCiAgICBmb3IgciBpbiBncHVzOgogICAgICAgIHIudXBkYXRlKAogICAgICAgICAgICBTdGF0dXM9ImdwdS1taXNzaW5nIiBpZiBtaXNzaW5nIGVsc2UgIm9rIiwKICAgICAgICAgICAgSGVhbHRoeT1ub3QgbWlzc2luZywKICAgICAgICAgICAgTWVzc2FnZT1taXNzaW5nLAogICAgICAgICkKICAgIHJldHVybiBncHVzCgoKZGVmIG52aWRpYV9yb3dzKGJhc2UsIGV4cGVjdGVkLCBzaW5jZV9maWxlKToKICAgICIiIk9uZSByb3cgcGVyIEdQVSBmcm9tIG52aWRpYS1zbWksIG9yIG9uZSBoZWFsdGggcm93LiIiIgogICAgeGlkcywgeGlkX2NvZGVzID0geGlkX2Vycm9ycyhzaW5jZV9maWxlKQogICAgcmMsIG91dCwgZXJyID0gcnVuKFsibnZpZGlhLXNtaSIsICItLXF1ZXJ5LWdwdT0iICsgUVVFUlksICItLWZvcm1hdD1jc3Ysbm9oZWFkZXIsbm91bml0cyJdKQogICAgcm93cyA9IFtdCiAgICBpZiByYyA9PSAwOgogICAgICAgIGN1ZGEgPSBjdWRhX3ZlcnNpb24oKQogICAgICAgIGZvciBsaW5lIGluIG91dC5zcGxpdGxpbmVzKCk6CiAgICAgICAgICAgIGYgPSBbYy5zdHJpcCgpIGZvciBjIGluIGxpbmUuc3BsaXQoIiwiKV0KICAgICAgICAgICAgaWYgbGVuKGYpICE9IDExOgogICAgICAgICAgICAgICAgY29udGludWUKICAgICAgICAgICAgcm93cy5hcHBlbmQoCiAgICAgICAgICAgICAgICBkaWN0KAogICAgICAgICAgICAgICAgICAgIGJhc2UsCiAgICAgICAgICAgICAgICAgICAgR3B1SW5kZXg9aW50ZWdlcihmWzFdKSwKICAgICAgICAgICAgICAgICAgICBHcHVVdWlkPWZbMl0sCiAgICAgICAgICAgICAgICAgICAgR3B1TmFtZT1mWzNdLAogICAgICAgICAgICAgICAgICAgIFV0aWxpemF0aW9uUGVyY2VudD1udW0oZls0XSksCiAgICAgICAgICAgICAgICAgICAgTWVtb3J5VXNlZE1pQj1udW0oZls1XSksCiAgICAgICAgICAgICAgICAgICAgTWVtb3J5VG90YWxNaUI9bnVtKGZbNl0pLAogICAgICAgICAgICAgICAgICAgIFRlbXBlcmF0dXJlQz1udW0oZls3XSksCiAgICAgICAgICAgICAgICAgICAgUG93ZXJEcmF3Vz1udW0oZls4XSksCiAgICAgICAgICAgICAgICAgICAgRWNjVW5jb3JyZWN0ZWQ9aW50ZWdlcihmWzldKSwKICAgICAgICAgICAgICAgICAgICBYaWRFcnJvcnM9eGlkcywKICAgICAgICAgICAgICAgICAgICBYaWRDb2Rlcz14aWRfY29kZXMsCiAgICAgICAgICAgICAgICAgICAgRHJpdmVyVmVyc2lvbj1mWzEwXSwKICAgICAgICAgICAgICAgICAgICBDdWRhVmVyc2lvbj1jdWRhLAogICAgICAgICAgICAgICAgICAgIFN0YXR1cz0ib2siLAogICAgICAgICAgICAgICAgICAgIEhlYWx0aHk9VHJ1ZSwKICAgICAgICAgICAgICAgICAgICBNZXNzYWdlPSIiLAogICAgICAgICAgICAgICAgKQogICAgICAgICAgICApCiAgICBpZiByYyAhPSAwIG9yIG5vdCByb3dzOgogICAgICAgIG1zZyA9IChlcnIgb3Igb3V0KS5zdHJpcCgpLnNwbGl0bGluZXMoKQogICAgICAgIHJvd3MgPSBbCiAgICAgICAgICAgIGRpY3QoCiAgICAgICAgICAgICAgICBiYXNlLAogICAgICAgICAgICAgICAgR3B1SW5kZXg9Tm9uZSwKICAgICAgICAgICAgICAgIFN0YXR1cz0ibnZpZGlhLXNtaS1mYWlsZWQiIGlmIHJjICE9IDAgZWxzZSAibm8tZ3B1IiwKICAgICAgICAgICAgICAgIEhlYWx0aHk9RmFsc2UsCiAgICAgICAgICAgICAgICBYaWRFcnJvcnM9eGlkcywKICAgICAgICAgICAgICAgIFhpZENvZGVzPXhpZF9jb2RlcywKICAgICAgICAgICAgICAgIE1lc3NhZ2U9KG1zZ1swXSBpZiBtc2cgZWxzZSAibnZpZGlhLXNtaSBleGl0ZWQgJWQiICUgcmMpWzo1MDBdLAogICAgICAgICAgICApCiAgICAgICAgXQogICAgZWxpZiBsZW4ocm93cykgPCBleHBlY3RlZDoKICAgICAgICBmb3IgciBpbiByb3dzOgogICAgICAgICAgICByWyJTdGF0dXMiXSA9ICJncHUtbWlzc2luZyIKICAgICAgICAgICAgclsiSGVhbHRoeSJdID0gRmFsc2UKICAgICAgICAgICAgclsiTWVzc2FnZSJdID0gIm52aWRpYS1zbWkgc2hvd3MgJWQgb2YgJWQgR1BVcyIgJSAobGVuKHJvd3MpLCBleHBlY3RlZCkKICAgIHJldHVybiByb3dzCgoKZGVmIHJ1bm5pbmdfam9icygpOgogICAgIiIiVGhlIGpvYnMgdGhlIHdvcmtsb2FkIHNheXMgaXQgcnVucyAoSk9CU19GSUxFLCBvbmUgaW50ZWdlciksIG9yIE5vbmUgd2l0aG91dCBvbmUuIiIiCiAgICB0cnk6CiAgICAgICAgd2l0aCBvcGVuKEpPQlNfRklMRSkgYXMgZjoKICAgICAgICAgICAgbiA9IGludChmLnJlYWQoKS5zdHJpcCgpKQogICAgZXhjZXB0IChPU0Vycm9yLCBWYWx1ZUVycm9yKToKICAgICAgICByZXR1cm4gTm9uZQogICAgcmV0dXJuIG4gaWYgbiA+PSAwIGVsc2UgTm9uZQoKCmRlZiBjb2xsZWN0KGV4cGVjdGVkLCB2ZW5kb3I9Im52aWRpYSIpOgogICAgdCA9IG5vdygpCiAgICBzdGFtcCA9IHQuc3RyZnRpbWUoIiVZLSVtLSVkVCVIOiVNOiVTWiIpCiAgICBvcy5tYWtlZGlycyhMT0dfRElSLCBleGlzdF9vaz1UcnVlKQogICAgb3MubWFrZWRpcnMoU1RBVEVfRElSLCBleGlzdF9vaz1UcnVlKQogICAgbWV0YSA9IGltZHMoKQogICAgYmFzZSA9IHsKICAgICAgICAiVGltZUdlbmVyYXRlZCI6IHN0YW1wLAogICAgICAgICJDb21wdXRlciI6IHNvY2tldC5nZXRob3N0bmFtZSgpLAogICAgICAgICJWbUlkIjogbWV0YS5nZXQoInZtSWQiLCAiIiksCiAgICAgICAgIlByaW9yaXR5IjogbWV0YS5nZXQoInByaW9yaXR5IiwgIiIpIG9yICJSZWd1bGFyIiwKICAgICAgICAiRXhwZWN0ZWRHcHVzIjogZXhwZWN0ZWQsCiAgICAgICAgIlJ1bm5pbmdKb2JzIjogcnVubmluZ19qb2JzKCksCiAgICB9CiAgICBzaW5jZV9maWxlID0gb3MucGF0aC5qb2luKFNUQVRFX0RJUiwgInhpZC1zaW5jZSIpCiAgICBpZiB2ZW5kb3IgPT0gImFtZCI6CiAgICAgICAgcm93cyA9IGFtZF9yb3dzKGJhc2UsIGV4cGVjdGVkKQogICAgZWxzZToKICAgICAgICByb3dzID0gbnZpZGlhX3Jvd3MoYmFzZSwgZXhwZWN0ZWQsIHNpbmNlX2ZpbGUpCiAgICBwYXRoID0gb3MucGF0aC5qb2luKExPR19ESVIsICJncHUtJXMuanNvbiIgJSB0LnN0cmZ0aW1lKCIlWSVtJWQiKSkKICAgIHdpdGggb3BlbihwYXRoLCAiYSIpIGFzIGY6CiAgICAgICAgZm9yIHIgaW4gcm93czoKICAgICAgICAgICAgZi53cml0ZShqc29uLmR1bXBzKHIsIHNvcnRfa2V5cz1UcnVlLCBzZXBhcmF0b3JzPSgiLCIsICI6IikpICsgIlxuIikKICAgIGhlYWx0aHkgPSBhbGwoclsiSGVhbHRoeSJdIGZvciByIGluIHJvd3MpCiAgICBzdGF0dXMgPSB7InRpbWUiOiBzdGFtcCwgImhlYWx0aHkiOiBoZWFsdGh5LCAic3RhdHVzIjogcm93c1swXVsiU3RhdHVzIl19CiAgICB0bXAgPSBvcy5wYXRoLmpvaW4oU1RBVEVfRElSLCAiaGVhbHRoLmpzb24udG1wIikKICAgIHdpdGggb3Blbih0bXAsICJ3IikgYXMgZjoKICAgICAgICBqc29uLmR1bXAoc3RhdHVzLCBmKQogICAgb3MucmVwbGFjZSh0bXAsIG9zLnBhdGguam9pbihTVEFURV9ESVIsICJoZWFsdGguanNvbiIpKQogICAgaWYgdmVuZG9yICE9ICJhbWQiOgogICAgICAgIHdpdGggb3BlbihzaW5jZV9maWxlLCAidyIpIGFzIGY6CiAgICAgICAgICAgIGYud3JpdGUodC5zdHJmdGltZSgiJVktJW0tJWQgJUg6JU06JVMgVVRDIikpCiAgICAjIHRoZSBhZ2VudCByZWFkcyBuZXcgbGluZXM7IGZpbGVzIG9sZGVyIHRoYW4gS0VFUF9EQVlTIGFyZSBnb25lCiAgICBjdXRvZmYgPSAodCAtIGRhdGV0aW1lLnRpbWVkZWx0YShkYXlzPUtFRVBfREFZUykpLnN0cmZ0aW1lKCIlWSVtJWQiKQogICAgZm9yIG9sZCBpbiBnbG9iLmdsb2Iob3MucGF0aC5qb2luKExPR19ESVIsICJncHUtKi5qc29uIikpOgogICAgICAgIGRheSA9IG9zLnBhdGguYmFzZW5hbWUob2xkKVs0OjEyXQogICAgICAgIGlmIGRheS5pc2RpZ2l0KCkgYW5kIGRheSA8IGN1dG9mZjoKICAgICAgICAgICAgb3MucmVtb3ZlKG9sZCkKICAgIHJldHVybiAwIGlmIGhlYWx0aHkgZWxzZSAxCgoKZGVmIGhlYWx0aCgpOgogICAgIiIiKEhUVFAgc3RhdHVzLCByaWNoIGhlYWx0aCBzdGF0ZSkgZnJvbSB0aGUgbGFzdCBzYW1wbGU7IHN0YWxlIGFmdGVyIDUgbWludXRlcy4iIiIKICAgIHRyeToKICAgICAgICB3aXRoIG9wZW4ob3MucGF0aC5qb2luKFNUQVRFX0RJUiwgImhlYWx0aC5qc29uIikpIGFzIGY6CiAgICAgICAgICAgIHMgPSBqc29uLmxvYWQoZikKICAgICAgICBhdCA9IGRhdGV0aW1lLmRhdGV0aW1lLnN0cnB0aW1lKHNbInRpbWUiXSwgIiVZLSVtLSVkVCVIOiVNOiVTWiIpLnJlcGxhY2UoCiAgICAgICAgICAgIHR6aW5mbz1kYXRldGltZS50aW1lem9uZS51dGMKICAgICAgICApCiAgICAgICAgZnJlc2ggPSAobm93KCkgLSBhdCkudG90YWxfc2Vjb25kcygpIDwgMzAwCiAgICAgICAgaWYgcy5nZXQoImhlYWx0aHkiKSBhbmQgZnJlc2g6CiAgICAgICAgICAgIHJldHVybiAyMDAsICJIZWFsdGh5IgogICAgZXhjZXB0IChPU0Vycm9yLCBWYWx1ZUVycm9yLCBLZXlFcnJvcik6CiAgICAgICAgcGFzcwogICAgIyAyMDAgd2l0aCB0aGUgc3RhdGU6IHRoZSBBcHBsaWNhdGlvbiBIZWFsdGggZXh0ZW5zaW9uIHJlYWRzIGEgbm9uLTJ4eCBhbnN3ZXIgYXMgVW5rbm93bgogICAgcmV0dXJuIDIwMCwgIlVuaGVhbHRoeSIKCgpjbGFzcyBIYW5kbGVyKGh0dHAuc2VydmVyLkJhc2VIVFRQUmVxdWVzdEhhbmRsZXIpOgogICAgZGVmIGRvX0dFVChzZWxmKToKICAgICAgICBjb2RlLCBzdGF0ZSA9IGhlYWx0aCgpCiAgICAgICAgYm9keSA9IGpzb24uZHVtcHMoeyJBcHBsaWNhdGlvbkhlYWx0aFN0YXRlIjogc3RhdGV9KS5lbmNvZGUoKQogICAgICAgIHNlbGYuc2VuZF9yZXNwb25zZShjb2RlKQogICAgICAgIHNlbGYuc2VuZF9oZWFkZXIoIkNvbnRlbnQtVHlwZSIsICJhcHBsaWNhdGlvbi9qc29uIikKICAgICAgICBzZWxmLnNlbmRfaGVhZGVyKCJDb250ZW50LUxlbmd0aCIsIHN0cihsZW4oYm9keSkpKQogICAgICAgIHNlbGYuZW5kX2hlYWRlcnMoKQogICAgICAgIHNlbGYud2ZpbGUud3JpdGUoYm9keSkKCiAgICBkZWYgbG9nX21lc3NhZ2Uoc2VsZiwgKmFyZ3MpOgogICAgICAgIHBhc3MKCgpkZWYgbWFpbihhcmd2KToKICAgIGlmIDIgPD0gbGVuKGFyZ3YpIDw9IDQgYW5kIGFyZ3ZbMV0gPT0gImNvbGxlY3QiOgogICAgICAgIGV4cGVjdGVkID0gaW50KGFyZ3ZbMl0pIGlmIGxlbihhcmd2KSA+IDIgZWxzZSAxCiAgICAgICAgdmVuZG9yID0gYXJndlszXSBpZiBsZW4oYXJndikgPiAzIGVsc2UgIm52aWRpYSIKICAgICAgICBpZiB2ZW5kb3IgaW4gVkVORE9SUzoKICAgICAgICAgICAgcmV0dXJuIGNvbGxlY3QoZXhwZWN0ZWQsIHZlbmRvcikKICAgIGlmIGxlbihhcmd2KSA9PSAzIGFuZCBhcmd2WzFdID09ICJzZXJ2ZSI6CiAgICAgICAgc2VydmVyID0gaHR0cC5zZXJ2ZXIuSFRUUFNlcnZlcigoIjEyNy4wLjAuMSIsIGludChhcmd2WzJdKSksIEhhbmRsZXIpCiAgICAgICAgc2VydmVyLnNlcnZlX2ZvcmV2ZXIoKQogICAgICAgIHJldHVybiAwCiAgICBpZiBsZW4oYXJndikgPT0gMiBhbmQgYXJndlsxXSA9PSAiaGVhbHRoIjoKICAgICAgICBfLCBzdGF0ZSA9IGhlYWx0aCgpCiAgICAgICAgcHJpbnQoc3RhdGUpCiAgICAgICAgcmV0dXJuIDAgaWYgc3RhdGUgPT0gIkhlYWx0aHkiIGVsc2UgMQogICAgc3lzLnN0ZGVyci53cml0ZSgidXNhZ2U6IGdwdWZvcm0tZ3B1IGNvbGxlY3QgRVhQRUNURURfR1BVUyBbbnZpZGlhfGFtZF0gfCBzZXJ2ZSBQT1JUIHwgaGVhbHRoXG4iKQogICAgcmV0dXJuIDIKCgppZiBfX25hbWVfXyA9PSAiX19tYWluX18iOgogICAgc3lzLmV4aXQobWFpbihzeXMuYXJndikpCkdQVUZPUk1fRU9GCmNobW9kIDA3NTUgL3Vzci9sb2NhbC9saWIvZ3B1Zm9ybS9ncHVmb3JtLWdwdQpjYXQgPiAvZXRjL3N5c3RlbWQvc3lzdGVtL2dwdWZvcm0tZ3B1LWNvbGxlY3Quc2VydmljZSA8PCdHUFVGT1JNX0VPRicKW1VuaXRdCkRlc2NyaXB0aW9uPWdwdWZvcm0gR1BVIHNhbXBsZSAobnZpZGlhLXNtaSB0byAvdmFyL2xvZy9ncHVmb3JtL2dwdS0qLmpzb24pCgpbU2VydmljZV0KVHlwZT1vbmVzaG90CkV4ZWNTdGFydD0vdXNyL2xvY2FsL2xpYi9ncHVmb3JtL2dwdWZvcm0tZ3B1IGNvbGxlY3QgMSBudmlkaWEKU3VjY2Vzc0V4aXRTdGF0dXM9MQpHUFVGT1JNX0VPRgpjYXQgPiAvZXRjL3N5c3RlbWQvc3lzdGVtL2dwdWZvcm0tZ3B1LWNvbGxlY3QudGltZXIgPDwnR1BVRk9STV9FT0YnCltVbml0XQpEZXNjcmlwdGlvbj1ncHVmb3JtIEdQVSBzYW1wbGUgZXZlcnkgbWludXRlCgpbVGltZXJdCk9uQ2FsZW5kYXI9Ki0qLSogKjoqOjAwCkFjY3VyYWN5U2VjPTFzCgpbSW5zdGFsbF0KV2FudGVkQnk9dGltZXJzLnRhcmdldApHUFVGT1JNX0VPRgpjYXQgPiAvZXRjL3N5c3RlbWQvc3lzdGVtL2dwdWZvcm0tZ3B1LWhlYWx0aC5zZXJ2aWNlIDw8J0dQVUZPUk1fRU9GJwpbVW5pdF0KRGVzY3JpcHRpb249Z3B1Zm9ybSBHUFUgaGVhbHRoIGVuZHBvaW50ICgxMjcuMC4wLjE6ODcxMSkKQWZ0ZXI9bmV0d29yay50YXJnZXQKCltTZXJ2aWNlXQpFeGVjU3RhcnQ9L3Vzci9sb2NhbC9saWIvZ3B1Zm9ybS9ncHVmb3JtLWdwdSBzZXJ2ZSA4NzExClJlc3RhcnQ9YWx3YXlzClJlc3RhcnRTZWM9NQpEeW5hbWljVXNlcj15ZXMKUmVhZE9ubHlQYXRocz0vCgpbSW5zdGFsbF0KV2FudGVkQnk9bXVsdGktdXNlci50YXJnZXQKR1BVRk9STV9FT0YKc3lzdGVtY3RsIGRhZW1vbi1yZWxvYWQKc3lzdGVtY3RsIGVuYWJsZSAtLW5vdyBncHVmb3JtLWdwdS1jb2xsZWN0LnRpbWVyIGdwdWZvcm0tZ3B1LWhlYWx0aC5zZXJ2aWNlCg=='

// ---------------------------------------------------------------- network
// One VNet, a workload subnet and a private endpoint subnet. Subnets have no default outbound
// access; the NAT gateway gives the VMs egress (the GPU driver extension downloads the driver).

resource nsgWorkload 'Microsoft.Network/networkSecurityGroups@2025-05-01' = {
  name: 'nsg-variant-standby-workload'
  location: location
  tags: tags
  properties: {
    // Only the spec's inbound allow rules; Azure's default rules deny all other inbound traffic.
    securityRules: [
    ]
  }
}

resource nsgPrivateEndpoints 'Microsoft.Network/networkSecurityGroups@2025-05-01' = {
  name: 'nsg-variant-standby-private-endpoints'
  location: location
  tags: tags
  properties: {
    securityRules: []
  }
}

// Regional pool (no zones): a Standard NAT gateway without a zone, like the pool.
resource natPublicIp 'Microsoft.Network/publicIPAddresses@2025-05-01' = {
  name: 'pip-variant-standby-nat'
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
  name: 'ng-variant-standby'
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
  name: 'vnet-variant-standby'
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
  name: 'id-variant-standby'
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
    name: 'link-vnet-variant-standby'
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
  name: 'pep-variant-standby-vault'
  location: location
  tags: tags
  properties: {
    subnet: {
      id: vnet::privateEndpointSubnet.id
    }
    customNetworkInterfaceName: 'pep-variant-standby-vault-nic'
    privateLinkServiceConnections: [
      {
        name: 'pep-variant-standby-vault'
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

// ---------------------------------------------------------------- compute
// Flexible orchestration, Standard_NV12ads_A10_v5, image ubuntu-22.04. No public IPs on the instances.

resource vmss 'Microsoft.Compute/virtualMachineScaleSets@2025-11-01' = {
  // checkov:skip=CKV_AZURE_95: checkov fails every Flexible scale set here; automatic OS image upgrades would also swap the image under the GPU driver and CUDA stack. Roll out a new image by redeploying after testing the driver
  name: 'vmss-variant-standby'
  location: location
  tags: tags
  sku: {
    name: 'Standard_NV12ads_A10_v5'
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
    // the standby pool keeps its VMs hibernated (Learn, hibernate-resume)
    additionalCapabilities: {
      hibernationEnabled: true
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
      osProfile: {
        computerNamePrefix: 'variant-standby'
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
          diskSizeGB: 256
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
            name: 'nic-variant-standby'
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
            // GPU driver: grid (NvidiaGpuDriverLinux), driver 535.161; pinned because GRID 17.5 broke CUDA on A10 vGPU; 535.161 (GRID 16.5) is the documented known-good driver
            name: 'NvidiaGpuDriverLinux'
            properties: {
              publisher: 'Microsoft.HpcCompute'
              type: 'NvidiaGpuDriverLinux'
              typeHandlerVersion: '1.6'
              autoUpgradeMinorVersion: true
              settings: {
                driverVersion: '535.161'
              }
            }
          }
          {
            // Azure Monitor Agent: ships the GPU collector's JSON lines; signs in with the pool's user-assigned identity (mi_res_id).
            name: 'AzureMonitorLinuxAgent'
            properties: {
              publisher: 'Microsoft.Azure.Monitor'
              type: 'AzureMonitorLinuxAgent'
              typeHandlerVersion: '1.40'
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

// ---------------------------------------------------------------- autoscale
// Profiles: the default first, then each recurring profile. A recurring profile has no end;
// it applies until the next one starts, so every schedule has a start and a restore profile.
resource autoscale 'Microsoft.Insights/autoscaleSettings@2022-10-01' = {
  name: 'as-variant-standby'
  location: location
  tags: tags
  properties: {
    name: 'as-variant-standby'
    enabled: true
    targetResourceUri: vmss.id
    profiles: [
      // Applies whenever no recurring profile has started.
      {
        name: 'default'
        capacity: {
          minimum: '0'
          maximum: '4'
          default: '0'
        }
        rules: []
      }
      // Schedule `workday` starts.
      {
        name: 'workday'
        capacity: {
          minimum: '1'
          maximum: '4'
          default: '1'
        }
        recurrence: {
          frequency: 'Week'
          schedule: {
            timeZone: 'W. Europe Standard Time'
            days: [
              'Monday'
              'Tuesday'
              'Wednesday'
              'Thursday'
              'Friday'
            ]
            hours: [
              8
            ]
            minutes: [
              0
            ]
          }
        }
        rules: []
      }
      // Schedule `workday` ends: back to the default limits (a recurring profile has no end of its own).
      {
        name: 'workday (end)'
        capacity: {
          minimum: '0'
          maximum: '4'
          default: '0'
        }
        recurrence: {
          frequency: 'Week'
          schedule: {
            timeZone: 'W. Europe Standard Time'
            days: [
              'Monday'
              'Tuesday'
              'Wednesday'
              'Thursday'
              'Friday'
            ]
            hours: [
              18
            ]
            minutes: [
              0
            ]
          }
        }
        rules: []
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

// ---------------------------------------------------------------- standby pool
// Standby pool (autoscale.standby): VMs built from the scale set's model, extensions and GPU
// driver included, that wait Hibernated until a scale-out takes them. Azure keeps
// max(maxReadyCapacity - instances in the scale set, minReadyCapacity) VMs in the pool; each
// counts against the vCPU quota and bills its disks.
// Before it works: `az provider register -n Microsoft.StandbyPool`, and the
// "Standby Pool Resource Provider" principal of the tenant holds
// Virtual Machine Contributor (9980e02c-c2be-4d73-94e8-173b1dc7cf3c),
// Network Contributor (4d97b98b-1d4f-4787-a291-c67834d212e7),
// Managed Identity Operator (f1a07417-d97a-45cb-824c-7a7467783830).
// The template grants them on the resource group (autoscale.standby.providerPrincipalId).

// Virtual Machine Contributor: The Standby Pool resource provider creates, starts and deallocates the pooled VMs.
resource standbyProviderRole0 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(resourceGroup().id, '3f2504e0-4f89-41d3-9a0c-0305e82c3301', '9980e02c-c2be-4d73-94e8-173b1dc7cf3c')
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '9980e02c-c2be-4d73-94e8-173b1dc7cf3c')
    principalId: '3f2504e0-4f89-41d3-9a0c-0305e82c3301'
    principalType: 'ServicePrincipal'
    description: 'The Standby Pool resource provider creates, starts and deallocates the pooled VMs.'
  }
}

// Network Contributor: The Standby Pool resource provider creates the pooled VMs' network interfaces in the workload subnet.
resource standbyProviderRole1 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(resourceGroup().id, '3f2504e0-4f89-41d3-9a0c-0305e82c3301', '4d97b98b-1d4f-4787-a291-c67834d212e7')
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '4d97b98b-1d4f-4787-a291-c67834d212e7')
    principalId: '3f2504e0-4f89-41d3-9a0c-0305e82c3301'
    principalType: 'ServicePrincipal'
    description: 'The Standby Pool resource provider creates the pooled VMs\' network interfaces in the workload subnet.'
  }
}

// Managed Identity Operator: The Standby Pool resource provider assigns the pool's user-assigned identity to the pooled VMs.
resource standbyProviderRole2 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(resourceGroup().id, '3f2504e0-4f89-41d3-9a0c-0305e82c3301', 'f1a07417-d97a-45cb-824c-7a7467783830')
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', 'f1a07417-d97a-45cb-824c-7a7467783830')
    principalId: '3f2504e0-4f89-41d3-9a0c-0305e82c3301'
    principalType: 'ServicePrincipal'
    description: 'The Standby Pool resource provider assigns the pool\'s user-assigned identity to the pooled VMs.'
  }
}

resource standbyPool 'Microsoft.StandbyPool/standbyVirtualMachinePools@2026-04-01' = {
  name: 'sbp-variant-standby'
  location: location
  tags: tags
  properties: {
    attachedVirtualMachineScaleSetId: vmss.id
    elasticityProfile: {
      maxReadyCapacity: 2
      minReadyCapacity: 1
    }
    virtualMachineState: 'Hibernated'
  }
  dependsOn: [
    standbyProviderRole0
    standbyProviderRole1
    standbyProviderRole2
  ]
}

// ---------------------------------------------------------------- monitoring

resource workspace 'Microsoft.OperationalInsights/workspaces@2025-02-01' = {
  name: 'log-variant-standby'
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
  name: 'ag-variant-standby'
  location: 'global'
  tags: tags
  properties: {
    groupShortName: 'variant-stan'
    enabled: true
    emailReceivers: [
      {
        name: 'email-1'
        emailAddress: 'a@example.com'
        useCommonAlertSchema: true
      }
    ]
  }
}

// More than a tenth of the pool's VMs have been unavailable for 15 minutes (host or health failures).
resource alertVmAvailability 'Microsoft.Insights/metricAlerts@2018-03-01' = {
  name: 'alert-variant-standby-vm-availability'
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
          name: 'RunningJobs'
          type: 'int'
          description: 'Jobs the workload reports running on the VM: the integer its supervisor writes to /run/gpuform/jobs (Windows: C:\\ProgramData\\gpuform\\jobs); empty when it writes none'
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
  name: 'dce-variant-standby'
  location: location
  tags: tags
  kind: 'Linux'
  properties: {
    description: 'Data collection endpoint of the GPU telemetry of variant-standby.'
    networkAcls: {
      publicNetworkAccess: 'Enabled'
    }
  }
}

resource gpuDcr 'Microsoft.Insights/dataCollectionRules@2023-03-11' = {
  name: 'dcr-variant-standby-gpu'
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
  dependsOn: [
    // the output stream is the table
    gpuTable
  ]
}

// A Flexible scale set's VMs are separate resources: an association scoped to the scale set does
// not reach them (Learn, data collection rule associations: associate the rule with each VM). The
// built-in policy Configure Linux Virtual Machines to be associated with a Data Collection Rule or a Data Collection Endpoint
// (Azure/azure-policy built-in-policies/policyDefinitions/Monitoring/AzureMonitor_DCRA_VM_Linux_DINE.json@05094af972fd93f48e0e1e1a7683f8a831fb5009) associates every VM of this resource group whose OS disk is
// Linux with the rule once it is provisioned, so each VM a scale-out adds gets it too;
// its identity holds the two roles the definition names, and the remediation associates the VMs
// that were created before it could.
resource gpuDcrPolicy 'Microsoft.Authorization/policyAssignments@2026-07-01' = {
  name: 'variant-standby-gpu-dcr-association'
  location: location
  identity: {
    type: 'SystemAssigned'
  }
  properties: {
    displayName: 'variant-standby: associate every VM with the GPU telemetry rule'
    description: 'Associates each VM of the pool with dcr-variant-standby-gpu, including the VMs scale-outs add.'
    policyDefinitionId: tenantResourceId('Microsoft.Authorization/policyDefinitions', '58e891b9-ce13-4ac3-86e4-ac3e1f20cb07')
    parameters: {
      dcrResourceId: {
        value: gpuDcr.id
      }
      resourceType: {
        value: 'Microsoft.Insights/dataCollectionRules'
      }
      // every Linux VM, not only the images on the definition's list (the GPU images are not)
      scopeToSupportedImages: {
        value: false
      }
    }
  }
}

// Monitoring Contributor for the policy's identity: the definition's roleDefinitionIds.
resource gpuDcrPolicyMonitoringContributor 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(resourceGroup().id, gpuDcrPolicy.id, '749f88d5-cbae-40b8-bcfc-e573ddc772fa')
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '749f88d5-cbae-40b8-bcfc-e573ddc772fa')
    principalId: gpuDcrPolicy.identity.principalId
    principalType: 'ServicePrincipal'
    description: 'The GPU telemetry policy associates each VM with the data collection rule.'
  }
}

// Log Analytics Contributor for the policy's identity: the definition's roleDefinitionIds.
resource gpuDcrPolicyLogAnalyticsContributor 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(resourceGroup().id, gpuDcrPolicy.id, '92aaf0da-9dab-42b6-94a3-d43ce8d16293')
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '92aaf0da-9dab-42b6-94a3-d43ce8d16293')
    principalId: gpuDcrPolicy.identity.principalId
    principalType: 'ServicePrincipal'
    description: 'The GPU telemetry policy associates each VM with the data collection rule.'
  }
}

// The VMs this deployment creates exist before the policy's identity holds its roles: remediate
// them once (new VMs are associated by the policy itself after they are provisioned).
resource gpuDcrRemediation 'Microsoft.PolicyInsights/remediations@2024-10-01' = {
  name: 'variant-standby-gpu-dcr-association'
  properties: {
    policyAssignmentId: gpuDcrPolicy.id
    resourceDiscoveryMode: 'ReEvaluateCompliance'
  }
  dependsOn: [
    vmss
    gpuDcrPolicyMonitoringContributor
    gpuDcrPolicyLogAnalyticsContributor
  ]
}

// Instances above the active autoscale profile's minimum whose GPUs averaged under 10% for 60 minutes at $1.180/h each (pay-as-you-go list price in westeurope): the pool is not scaling in. Only VMs that reported through the whole window and still report count, so VMs a scale-in removed or a scale-out just added never do. A MIG GPU reports no utilisation: its share of memory in use stands in. Check the scale-in rule (queue threshold, cooldown) and the schedule's min.
resource gpuAlertIdle 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-variant-standby-gpu-idle'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'variant-standby: idle GPUs above the minimum'
    description: 'Instances above the active autoscale profile\'s minimum whose GPUs averaged under 10% for 60 minutes at $1.180/h each (pay-as-you-go list price in westeurope): the pool is not scaling in. Only VMs that reported through the whole window and still report count, so VMs a scale-in removed or a scale-out just added never do. A MIG GPU reports no utilisation: its share of memory in use stands in. Check the scale-in rule (queue threshold, cooldown) and the schedule\'s min.'
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
          query: 'GpuTelemetry_CL\n| where TimeGenerated > now() - 60m and Status == "ok"\n| extend Utilization = coalesce(UtilizationPercent, iff(MemoryTotalMiB > 0, 100.0 * MemoryUsedMiB / MemoryTotalMiB, real(null)))\n| summarize AvgUtilization = avg(Utilization), FirstSeen = min(TimeGenerated), LastSeen = max(TimeGenerated) by Computer\n| where FirstSeen <= now() - 55m and LastSeen >= now() - 10m\n| summarize Instances = count(), IdleInstances = countif(AvgUtilization < 10)\n| extend Local0 = datetime_utc_to_local(now(), "Europe/Berlin")\n| extend LocalMinute0 = (toint(dayofweek(Local0) / 1d) + 6) % 7 * 1440 + hourofday(Local0) * 60 + datetime_part("minute", Local0)\n| extend Age0 = (LocalMinute0 - 480 + 10080) % 10080, Age1 = (LocalMinute0 - 1920 + 10080) % 10080, Age2 = (LocalMinute0 - 3360 + 10080) % 10080, Age3 = (LocalMinute0 - 4800 + 10080) % 10080, Age4 = (LocalMinute0 - 6240 + 10080) % 10080, Age5 = (LocalMinute0 - 1080 + 10080) % 10080, Age6 = (LocalMinute0 - 2520 + 10080) % 10080, Age7 = (LocalMinute0 - 3960 + 10080) % 10080, Age8 = (LocalMinute0 - 5400 + 10080) % 10080, Age9 = (LocalMinute0 - 6840 + 10080) % 10080\n| extend Age = min_of(Age0, Age1, Age2, Age3, Age4, Age5, Age6, Age7, Age8, Age9)\n| extend ProfileMin = case(Age == Age0, 1, Age == Age1, 1, Age == Age2, 1, Age == Age3, 1, Age == Age4, 1, Age == Age5, 0, Age == Age6, 0, Age == Age7, 0, Age == Age8, 0, 0)\n| extend IdleAboveMin = max_of(0, min_of(IdleInstances, Instances - ProfileMin))\n| extend IdleCostPerHour = round(IdleAboveMin * 1.18, 2)'
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
        'Email.Subject': 'variant-standby: \${data.alertContext.condition.allOf[0].metricValue} idle GPU instance(s) above the autoscale minimum, $1.180/h each (\${data.essentials.monitorCondition})'
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
  name: 'alert-variant-standby-gpu-vram'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'variant-standby: VRAM pressure'
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
        'Email.Subject': 'variant-standby: a GPU at \${data.alertContext.condition.allOf[0].metricValue}% of its VRAM (\${data.essentials.monitorCondition})'
      }
    }
  }
  dependsOn: [
    // the query is validated against the table
    gpuTable
  ]
}

// A VM reported Xid errors, new uncorrected ECC errors, a GPU missing from nvidia-smi, or a failing driver. Health rows of a VM's first 30 minutes do not count (the driver extension is still installing nvidia-smi). Automatic repairs replaces a VM whose health probe stays unhealthy.
resource gpuAlertFaults 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-variant-standby-gpu-faults'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'variant-standby: GPU faults'
    description: 'A VM reported Xid errors, new uncorrected ECC errors, a GPU missing from nvidia-smi, or a failing driver. Health rows of a VM\'s first 30 minutes do not count (the driver extension is still installing nvidia-smi). Automatic repairs replaces a VM whose health probe stays unhealthy.'
    severity: 1
    enabled: true
    scopes: [
      workspace.id
    ]
    evaluationFrequency: 'PT5M'
    windowSize: 'PT1H'
    criteria: {
      allOf: [
        {
          query: 'let Since = now() - 10m;\nlet Seen = GpuTelemetry_CL\n| where TimeGenerated > now() - 60m\n| summarize FirstSeen = min(TimeGenerated) by Computer;\nlet Health = GpuTelemetry_CL\n| where TimeGenerated > Since and Status != "ok"\n| join kind=inner Seen on Computer\n| where FirstSeen <= now() - 30m\n| summarize FaultSamples = count(), LastMessage = take_any(Message) by Computer, Kind = Status;\nlet Xid = GpuTelemetry_CL\n| where TimeGenerated > Since and XidErrors > 0\n| summarize FaultSamples = dcount(TimeGenerated), XidCodeSet = make_set(XidCodes) by Computer, Kind = "xid";\nlet Ecc = GpuTelemetry_CL\n| where TimeGenerated > Since and Status == "ok" and isnotnull(EccUncorrected)\n| summarize arg_max(TimeGenerated, EccUncorrected), EccMin = min(EccUncorrected) by Computer, GpuIndex\n| where EccUncorrected > EccMin\n| summarize FaultSamples = sum(EccUncorrected - EccMin) by Computer, Kind = "ecc-uncorrected";\nunion Health, Xid, Ecc\n| project Computer, Kind, FaultSamples'
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
        'Email.Subject': 'variant-standby: GPU fault on a VM, \${data.alertContext.condition.allOf[0].metricValue} faulty sample(s) (\${data.essentials.monitorCondition})'
      }
    }
  }
  dependsOn: [
    // the query is validated against the table
    gpuTable
  ]
}

// Instances the pool has held for 45 minutes (the autoscale setting's ObservedCapacity) wrote no row to GpuTelemetry_CL in the last 15 minutes: the idle, VRAM and fault alerts cannot see them. Check the data collection rule association of the VMs (Flexible pools: the policy assignment and its remediation), the Azure Monitor Agent and the gpuform-gpu collector on a VM.
resource gpuAlertSilent 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-variant-standby-gpu-telemetry-missing'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'variant-standby: no GPU telemetry from running instances'
    description: 'Instances the pool has held for 45 minutes (the autoscale setting\'s ObservedCapacity) wrote no row to GpuTelemetry_CL in the last 15 minutes: the idle, VRAM and fault alerts cannot see them. Check the data collection rule association of the VMs (Flexible pools: the policy assignment and its remediation), the Azure Monitor Agent and the gpuform-gpu collector on a VM.'
    severity: 2
    enabled: true
    scopes: [
      workspace.id
    ]
    evaluationFrequency: 'PT5M'
    windowSize: 'PT45M'
    criteria: {
      allOf: [
        {
          query: 'let Running = toscalar(AzureMetrics\n| where TimeGenerated > now() - 45m and MetricName == "ObservedCapacity" and Resource =~ "as-variant-standby"\n| summarize min(Minimum));\nGpuTelemetry_CL\n| where TimeGenerated > now() - 15m\n| summarize Reporting = dcount(Computer)\n| extend Running = toint(coalesce(Running, 0.0))\n| extend SilentInstances = max_of(0, Running - Reporting)'
          timeAggregation: 'Maximum'
          metricMeasureColumn: 'SilentInstances'
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
        'Email.Subject': 'variant-standby: \${data.alertContext.condition.allOf[0].metricValue} running instance(s) send no GPU telemetry (\${data.essentials.monitorCondition})'
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
  name: guid(resourceGroup().id, 'variant-standby-gpu-workbook')
  location: location
  tags: tags
  kind: 'shared'
  properties: {
    displayName: 'GPU pool variant-standby'
    category: 'workbook'
    sourceId: workspace.id
    serializedData: '{"version":"Notebook/1.0","items":[{"type":1,"content":{"json":"## GPU pool `variant-standby`\\nSampled once a minute on every VM by the gpuform collector (`nvidia-smi`) into `GpuTelemetry_CL`. Idle: under 10% utilisation; VRAM alert above 90%."}},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where Status == \\"ok\\"\\n| summarize Utilization = avg(UtilizationPercent) by Computer, bin(TimeGenerated, 5m)","size":0,"title":"GPU utilisation per VM (%)","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"timechart"},"customWidth":"50","name":"GPU utilisation per VM (%)"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where Status == \\"ok\\"\\n| summarize MemoryGiB = max(MemoryUsedMiB) / 1024.0 by Computer, bin(TimeGenerated, 5m)","size":0,"title":"GPU memory used per VM (GiB, peak GPU)","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"timechart"},"customWidth":"50","name":"GPU memory used per VM (GiB, peak GPU)"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| summarize Instances = dcount(Computer) by Priority, bin(TimeGenerated, 5m)","size":0,"title":"Instances by priority","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"areachart"},"customWidth":"50","name":"Instances by priority"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where isnotnull(RunningJobs)\\n| summarize Jobs = max(RunningJobs) by Computer, bin(TimeGenerated, 5m)","size":0,"title":"Jobs the workload reports running, per VM","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"timechart"},"customWidth":"50","name":"Jobs the workload reports running, per VM"},{"type":3,"content":{"version":"KqlItem/1.0","query":"AzureMetrics\\n| where MetricName in (\\"ActiveMessages\\", \\"QueueMessageCount\\", \\"ObservedCapacity\\")\\n| summarize Value = avg(Average) by MetricName, bin(TimeGenerated, 5m)","size":0,"title":"Queue length and autoscale capacity","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"timechart"},"customWidth":"50","name":"Queue length and autoscale capacity"},{"type":3,"content":{"version":"KqlItem/1.0","query":"AutoscaleEvaluationsLog\\n| where ProfileSelected == true\\n| summarize ProfileMin = max(MinimumInstanceCount), ProfileMax = max(MaximumInstanceCount) by Profile, bin(TimeGenerated, 5m)","size":0,"title":"Active autoscale profile (min and max of the profile in force)","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"timechart"},"customWidth":"50","name":"Active autoscale profile (min and max of the profile in force)"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where TimeGenerated > startofmonth(now()) and Status == \\"ok\\"\\n| summarize Utilization = avg(UtilizationPercent) by Computer, bin(TimeGenerated, 1h)\\n| where Utilization < 10\\n| summarize IdleVmHours = count()\\n| extend IdleCostUSD = round(IdleVmHours * 1.18, 2)","size":0,"title":"Idle GPU-hours and their cost this month","timeContext":{"durationMs":2678400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"tiles"},"customWidth":"50","name":"Idle GPU-hours and their cost this month"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where Status != \\"ok\\" or XidErrors > 0 or EccUncorrected > 0\\n| project TimeGenerated, Computer, Status, XidErrors, XidCodes, EccUncorrected, Message\\n| order by TimeGenerated desc","size":0,"title":"GPU faults and health rows","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"table"},"customWidth":"50","name":"GPU faults and health rows"},{"type":3,"content":{"version":"KqlItem/1.0","query":"alertsmanagementresources\\n| where type =~ \\"microsoft.alertsmanagement/alerts\\"\\n| where tostring(properties.essentials.alertRule) contains \\"alert-variant-standby-\\"\\n| project FiredAt = todatetime(properties.essentials.startDateTime), Rule = tostring(properties.essentials.alertRule), Severity = tostring(properties.essentials.severity), State = tostring(properties.essentials.monitorCondition)\\n| order by FiredAt desc","size":0,"title":"Alerts fired","queryType":1,"resourceType":"microsoft.resourcegraph/resources","crossComponentResources":["value::all"],"visualization":"table"},"name":"Alerts fired"}],"isLocked":false,"fallbackResourceIds":[],"$schema":"https://github.com/Microsoft/Application-Insights-Workbooks/blob/master/schema/workbook.json"}'
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
