import { assert, describe, it } from "@effect/vitest"
import type { UserId } from "../../schemas/Ids.js"
import { grantableBy, Roles } from "../../schemas/Roles.js"
import { type ActiveAdmin, roleLeftWithoutHolder } from "../../services/auth/AdminFloor.js"

// A tenant keeps an active member at its highest admin role: which changes that rule refuses.

const a = (id: string, role: ActiveAdmin["role"]): ActiveAdmin => ({ user_id: id as UserId, role })
const id = (s: string) => s as UserId

describe("roleLeftWithoutHolder", () => {
  it("refuses demoting, disabling or removing the last holder of the highest role", () => {
    const admins = [a("root", "env_admin"), a("sys", "system_admin")]
    assert.strictEqual(roleLeftWithoutHolder(admins, id("root"), { role: "system_admin" }), "env_admin")
    assert.strictEqual(roleLeftWithoutHolder(admins, id("root"), { status: "disabled" }), "env_admin")
    assert.strictEqual(roleLeftWithoutHolder(admins, id("root"), "remove"), "env_admin")
  })

  it("lets the change go ahead when it keeps the role, or another member holds it", () => {
    const alone = [a("root", "env_admin")]
    assert.isUndefined(roleLeftWithoutHolder(alone, id("root"), { role: "env_admin", status: "active" }))
    assert.isUndefined(roleLeftWithoutHolder(alone, id("root"), {}))
    const two = [a("root", "env_admin"), a("other", "env_admin")]
    assert.isUndefined(roleLeftWithoutHolder(two, id("root"), "remove"))
    assert.isUndefined(roleLeftWithoutHolder(two, id("other"), { role: "user" }))
  })

  it("leaves members below the highest role, and members who are not active admins, alone", () => {
    const admins = [a("root", "env_admin"), a("sys", "system_admin"), a("ua", "user_admin")]
    assert.isUndefined(roleLeftWithoutHolder(admins, id("sys"), "remove"))
    assert.isUndefined(roleLeftWithoutHolder(admins, id("ua"), { status: "disabled" }))
    assert.isUndefined(roleLeftWithoutHolder(admins, id("builder"), "remove"))
  })

  it("keeps a tenant's top role whatever it is (a tenant whose admins are system_admins)", () => {
    const admins = [a("sys", "system_admin"), a("ua", "user_admin")]
    assert.strictEqual(roleLeftWithoutHolder(admins, id("sys"), { role: "user_admin" }), "system_admin")
    assert.isUndefined(roleLeftWithoutHolder(admins, id("ua"), "remove"))
  })
})

describe("grantableBy", () => {
  it("is the caller's own role and every role below it, highest first", () => {
    assert.deepStrictEqual(grantableBy("user_admin"), ["user_admin", "builder", "user", "no_access"])
    assert.deepStrictEqual(grantableBy("env_admin"), [...Roles])
    assert.deepStrictEqual(grantableBy("no_access"), ["no_access"])
  })
})
