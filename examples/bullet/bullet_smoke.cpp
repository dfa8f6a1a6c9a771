// SPDX-License-Identifier: MIT
// eddy coupled to Bullet (libbullet-dev): Bullet owns the rigid bodies (a
// small stack of boxes, a box in a jet, a few balls, the floor and every
// contact); eddy owns the air, its smoke and a blown jet, and pushes Bullet's
// bodies through the impulses it reports (docs/integration.md section 10).
//
// Every frame:
//   1. each Bullet body's pose and velocities go to its eddy twin, an
//      EDDY_BODY_EXTERNAL body (EDDY_BODY_SET_KINEMATIC);
//   2. eddy steps: the twins push the air and the air pushes them;
//   3. eddy_world_get_body_impulses: per twin, the linear and angular impulse
//      of the air during the step and the buoyancy; Bullet applies them;
//   4. Bullet steps (its gravity, contacts, friction).
//
// Run as a test: the loop runs with eddy at 1, 2 and 4 workers, and eddy's
// frame hash must be the same at every frame for all three; a ball thrown
// through the smoke must slow down (against the same throw in Bullet alone);
// the box in the jet must be pushed downstream. Exit status 0 when all hold.
#include <btBulletDynamicsCommon.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "eddy/eddy.h"

namespace {

constexpr float kDt = 1.0f / 30.0f;
constexpr int kFrames = 45;

// One Bullet body and its eddy twin.
struct Coupled {
    btRigidBody *body = nullptr;
    eddy_body_id twin = {0, 0};
};

struct Run {
    std::vector<uint64_t> hashes;   // eddy's frame hash, every frame
    float thrown_speed_x = 0.0f;    // the thrown ball's speed along x after 0.5 s (in the air)
    float jet_box_x0 = 0.0f, jet_box_x = 0.0f;
    bool ok = true;
};

eddy_vec3 to_eddy(const btVector3 &v) { return {v.x(), v.y(), v.z()}; }

// Still air in a block, seeded as eddy's scenes seed quiescent smoke: vortons
// 0.1 m apart carrying nothing, a tracer in every cell.
void add_smoke(std::vector<eddy_vorton> &v, std::vector<eddy_tracer> &t, eddy_vec3 lo,
               eddy_vec3 hi) {
    const float h = 0.1f;
    for (float z = lo.z; z < hi.z; z += h)
        for (float y = lo.y; y < hi.y; y += h)
            for (float x = lo.x; x < hi.x; x += h) {
                eddy_vorton p{};
                p.position = {x, y, z};
                v.push_back(p);
                eddy_tracer q{};
                q.position = {x + 0.5f * h, y + 0.5f * h, z + 0.5f * h};
                t.push_back(q);
            }
}

// A blown jet along +x: a cylindrical vortex sheet (azimuthal vorticity) of
// radius a around the axis y = y0, z = z0 from x0 to x1. Like a solenoid's
// field, the air inside moves along +x at about the sheet's strength.
void add_jet(std::vector<eddy_vorton> &v, std::vector<eddy_tracer> &t, float x0, float x1,
             float y0, float z0, float a, float speed) {
    const float h = 0.1f;
    const int around = 24;
    const float ds = 2.0f * 3.14159265f * a / (float)around;
    const float vol = 4.0f / 3.0f * 3.14159265f * 0.1f * 0.1f * 0.1f;
    // sheet strength gamma = speed: omega V per vorton = gamma * h * ds
    const float w = speed * h * ds / vol;
    for (float x = x0; x < x1; x += h)
        for (int k = 0; k < around; ++k) {
            const float th = 2.0f * 3.14159265f * (float)k / (float)around;
            const float c = eddy_cosf(th), s = eddy_sinf(th);
            eddy_vorton p{};
            p.position = {x, y0 + a * c, z0 + a * s};
            p.vorticity = {0.0f, -w * s, w * c}; // azimuthal: e_x x e_r
            v.push_back(p);
            eddy_tracer q{};
            q.position = {x, y0 + 0.5f * a * c, z0 + 0.5f * a * s};
            t.push_back(q);
        }
}

class Scene {
public:
    explicit Scene(bool air, int workers) : air_(air) {
        config_ = std::make_unique<btDefaultCollisionConfiguration>();
        dispatcher_ = std::make_unique<btCollisionDispatcher>(config_.get());
        broadphase_ = std::make_unique<btDbvtBroadphase>();
        solver_ = std::make_unique<btSequentialImpulseConstraintSolver>();
        world_ = std::make_unique<btDiscreteDynamicsWorld>(dispatcher_.get(), broadphase_.get(),
                                                           solver_.get(), config_.get());
        world_->setGravity(btVector3(0, 0, -10));
        // the floor, z = 0
        shapes_.emplace_back(new btStaticPlaneShape(btVector3(0, 0, 1), 0));
        add_body(shapes_.back().get(), 0.0f, btVector3(0, 0, 0), btVector3(0, 0, 0), nullptr);

        eddy_world_def def = eddy_world_def_default();
        def.worker_count = workers;
        def.dt = kDt;
        def.vorton_radius = 0.1f;
        if (eddy_world_create(&def, &eddy_) != EDDY_OK) {
            std::fprintf(stderr, "eddy_world_create: %s\n", eddy_last_error_message());
            std::exit(2);
        }
        std::vector<eddy_vorton> v;
        std::vector<eddy_tracer> t;
        add_smoke(v, t, {-1.0f, -2.5f, 0.8f}, {1.0f, -1.5f, 2.2f});
        add_jet(v, t, -2.5f, 0.6f, 1.5f, 0.35f, 0.4f, 6.0f);
        if (air_) {
            eddy_world_add_vortons(eddy_, v.data(), (int)v.size());
            eddy_world_add_tracers(eddy_, t.data(), (int)t.size());
        }
        // eddy's floor: a kinematic slab under z = 0 keeps the smoke out of it
        eddy_body_def floor = eddy_body_def_default();
        floor.type = EDDY_BODY_KINEMATIC;
        floor.shape = eddy_shape_box({8.0f, 8.0f, 0.5f});
        floor.position = {0.0f, 0.0f, -0.5f};
        floor.mass = 100.0f;
        eddy_body_id floor_id;
        check(eddy_world_create_body(eddy_, &floor, &floor_id), "floor");

        // a small stack of boxes and two balls resting beside it
        box_shape_.reset(new btBoxShape(btVector3(0.15f, 0.15f, 0.15f)));
        for (int k = 0; k < 3; ++k)
            stack_.push_back(add_box(btVector3(-0.5f, 1.0f, 0.15f + 0.3f * (float)k), 0.3f));
        ball_shape_.reset(new btSphereShape(0.15f));
        add_ball(btVector3(0.0f, 1.0f, 0.15f), btVector3(0, 0, 0), 0.5f);
        add_ball(btVector3(0.4f, 1.0f, 0.15f), btVector3(0, 0, 0), 0.5f);
        // a box in the jet, on the floor at its exit
        jet_box_ = add_box(btVector3(0.8f, 1.5f, 0.15f), 0.02f);
        // a ball thrown along +x through the smoke
        thrown_ = add_ball(btVector3(-1.3f, -2.0f, 1.8f), btVector3(6.0f, 0.0f, 0.0f), 0.1f);
    }

    ~Scene() {
        eddy_world_destroy(eddy_);
        for (int i = world_->getNumCollisionObjects() - 1; i >= 0; --i) {
            btCollisionObject *o = world_->getCollisionObjectArray()[i];
            btRigidBody *b = btRigidBody::upcast(o);
            if (b && b->getMotionState()) delete b->getMotionState();
            world_->removeCollisionObject(o);
            delete o;
        }
    }

    void frame(Run &run) {
        // 1. Bullet's poses and velocities to the twins
        std::vector<eddy_body_command> commands;
        for (const Coupled &c : coupled_) {
            const btTransform &x = c.body->getCenterOfMassTransform();
            const btQuaternion q = x.getRotation();
            eddy_body_command cmd{};
            cmd.body = c.twin;
            cmd.type = EDDY_BODY_SET_KINEMATIC;
            cmd.position = to_eddy(x.getOrigin());
            cmd.orientation = {q.x(), q.y(), q.z(), q.w()};
            cmd.linear_velocity = to_eddy(c.body->getLinearVelocity());
            cmd.angular_velocity = to_eddy(c.body->getAngularVelocity());
            commands.push_back(cmd);
        }
        eddy_input in{};
        in.body_commands = commands.data();
        in.body_command_count = (int)commands.size();
        // 2. eddy's step
        check(eddy_world_step(eddy_, &in), "step");
        run.hashes.push_back(eddy_world_hash(eddy_).frame_hash);
        // 3. the air's impulses to Bullet
        std::vector<eddy_body_impulse> imp(64);
        const int n = eddy_world_get_body_impulses(eddy_, imp.data(), (int)imp.size());
        for (int k = 0; k < n; ++k)
            for (const Coupled &c : coupled_)
                if (c.twin.index1 == imp[k].id.index1 && c.twin.generation == imp[k].id.generation) {
                    const eddy_vec3 j = imp[k].linear, b = imp[k].buoyancy, l = imp[k].angular;
                    c.body->activate(true);
                    c.body->applyCentralImpulse(btVector3(j.x + b.x, j.y + b.y, j.z + b.z));
                    c.body->applyTorqueImpulse(btVector3(l.x, l.y, l.z));
                }
        // 4. Bullet's step
        world_->stepSimulation(kDt, 0, kDt);
    }

    btRigidBody *thrown() const { return thrown_; }
    btRigidBody *jet_box() const { return jet_box_; }

private:
    static void check(eddy_status s, const char *what) {
        if (s != EDDY_OK) {
            std::fprintf(stderr, "eddy %s: %s\n", what, eddy_status_name(s));
            std::exit(2);
        }
    }

    btRigidBody *add_body(btCollisionShape *shape, float mass, const btVector3 &at,
                          const btVector3 &velocity, const eddy_shape *twin_shape) {
        btVector3 inertia(0, 0, 0);
        if (mass > 0.0f) shape->calculateLocalInertia(mass, inertia);
        btTransform x;
        x.setIdentity();
        x.setOrigin(at);
        auto *motion = new btDefaultMotionState(x);
        btRigidBody::btRigidBodyConstructionInfo info(mass, motion, shape, inertia);
        info.m_friction = 0.5f;
        auto *b = new btRigidBody(info);
        b->setLinearVelocity(velocity);
        b->setActivationState(DISABLE_DEACTIVATION);
        world_->addRigidBody(b);
        if (twin_shape) {
            eddy_body_def d = eddy_body_def_default();
            d.type = EDDY_BODY_EXTERNAL;
            d.shape = *twin_shape;
            d.mass = mass;
            d.position = to_eddy(at);
            d.linear_velocity = to_eddy(velocity);
            Coupled c;
            c.body = b;
            check(eddy_world_create_body(eddy_, &d, &c.twin), "create a twin");
            coupled_.push_back(c);
        }
        return b;
    }

    btRigidBody *add_box(const btVector3 &at, float mass) {
        const eddy_shape s = eddy_shape_box({0.15f, 0.15f, 0.15f});
        return add_body(box_shape_.get(), mass, at, btVector3(0, 0, 0), &s);
    }

    btRigidBody *add_ball(const btVector3 &at, const btVector3 &velocity, float mass) {
        const eddy_shape s = eddy_shape_sphere(0.15f);
        return add_body(ball_shape_.get(), mass, at, velocity, &s);
    }

    bool air_;
    std::unique_ptr<btDefaultCollisionConfiguration> config_;
    std::unique_ptr<btCollisionDispatcher> dispatcher_;
    std::unique_ptr<btBroadphaseInterface> broadphase_;
    std::unique_ptr<btSequentialImpulseConstraintSolver> solver_;
    std::unique_ptr<btDiscreteDynamicsWorld> world_;
    std::vector<std::unique_ptr<btCollisionShape>> shapes_;
    std::unique_ptr<btCollisionShape> box_shape_, ball_shape_;
    std::vector<btRigidBody *> stack_;
    btRigidBody *jet_box_ = nullptr, *thrown_ = nullptr;
    std::vector<Coupled> coupled_;
    eddy_world *eddy_ = nullptr;
};

Run run(bool air, int workers) {
    Run r;
    Scene scene(air, workers);
    r.jet_box_x0 = scene.jet_box()->getCenterOfMassPosition().x();
    for (int f = 0; f < kFrames; ++f) {
        scene.frame(r);
        if (f + 1 == 15) r.thrown_speed_x = scene.thrown()->getLinearVelocity().x();
    }
    r.jet_box_x = scene.jet_box()->getCenterOfMassPosition().x();
    return r;
}

} // namespace

int main() {
    int failures = 0;
    const Run one = run(true, 1), two = run(true, 2), four = run(true, 4);
    const Run bare = run(false, 1); // no smoke, no jet: only the ambient air
    for (int f = 0; f < kFrames; ++f)
        if (one.hashes[f] != two.hashes[f] || one.hashes[f] != four.hashes[f]) {
            std::printf("FAIL: eddy's hash differs at frame %d: %016llx (1 worker) %016llx (2) "
                        "%016llx (4)\n", f + 1, (unsigned long long)one.hashes[f],
                        (unsigned long long)two.hashes[f], (unsigned long long)four.hashes[f]);
            ++failures;
            break;
        }
    std::printf("eddy's frame hashes at 1, 2 and 4 workers: %s over %d frames (last %016llx)\n",
                failures ? "differ" : "identical", kFrames, (unsigned long long)one.hashes.back());
    // Bullet alone keeps the ball's horizontal speed while it flies (it lands
    // after about 0.55 s)
    std::printf("thrown ball: speed along x 6.00 -> %.3f m/s after 0.5 s through the smoke "
                "(Bullet alone: 6.00)\n", (double)one.thrown_speed_x);
    if (!(one.thrown_speed_x < 0.8f * 6.0f)) {
        std::printf("FAIL: the ball thrown through the smoke must slow down\n");
        ++failures;
    }
    std::printf("box in the jet: x %.3f -> %.3f m (without the jet: %.3f m)\n",
                (double)one.jet_box_x0, (double)one.jet_box_x, (double)bare.jet_box_x);
    if (!(one.jet_box_x - one.jet_box_x0 > 0.05f && one.jet_box_x - bare.jet_box_x > 0.05f)) {
        std::printf("FAIL: the jet must push the box downstream (+x)\n");
        ++failures;
    }
    return failures ? 1 : 0;
}
